import { describe, expect, it } from 'vitest';
import { ModelLabels, OTHER } from './model-labels.ts';

describe('model labels', () => {
  it('keeps configured and list-priced names, reports dated ids under their table id, and makes the rest other', () => {
    const m = new ModelLabels();
    expect(m.label('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(m.label('gpt-4o-2024-11-20')).toBe('gpt-4o');
    expect(m.label('my-local-llama')).toBe(OTHER);
    m.configure('accounts', ['my-local-llama', 'qwen-*']);
    expect(m.label('my-local-llama')).toBe('my-local-llama');
    // A pattern is not a name: what it matches stays other.
    expect(m.label('qwen-72b')).toBe(OTHER);
    m.configure('aliases', ['fast']);
    expect(m.label('fast')).toBe('fast');
    m.configure('accounts', []);
    expect(m.label('my-local-llama')).toBe(OTHER);
  });

  it('gives a bounded set of values whatever is asked', () => {
    const m = new ModelLabels();
    const values = new Set<string>();
    for (let i = 0; i < 20_000; i++) values.add(m.label(`random-${i}`));
    expect(values).toEqual(new Set([OTHER]));
  });
});
