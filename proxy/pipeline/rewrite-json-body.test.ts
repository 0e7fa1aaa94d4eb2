import { describe, expect, it } from 'vitest';
import { addTopLevelBytes, addTopLevelField, replaceNestedValue, replaceTopLevelValue, topLevelValueSpan } from './rewrite-json-body.ts';

describe('byte-preserving body edits', () => {
  it('replaces only the top-level model, keeping every other byte', () => {
    const text = '{"messages":[{"role":"user","content":"say \\"model\\": x","model":"inner"}],  "model" :  "fast", "n":1.0}';
    const out = replaceTopLevelValue(text, 'model', 'gpt-4o-mini');
    expect(out).toBe('{"messages":[{"role":"user","content":"say \\"model\\": x","model":"inner"}],  "model" :  "gpt-4o-mini", "n":1.0}');
    expect(JSON.parse(out).messages[0].model).toBe('inner');
  });

  it('finds object, number and literal values and leaves absent keys alone', () => {
    const text = '{"a":{"b":[1,{"c":"}"}]},"n": 12 ,"t":true}';
    const [s, e] = topLevelValueSpan(text, 'a')!;
    expect(text.slice(s, e)).toBe('{"b":[1,{"c":"}"}]}');
    const [s2, e2] = topLevelValueSpan(text, 'n')!;
    expect(text.slice(s2, e2)).toBe('12');
    expect(replaceTopLevelValue(text, 'model', 'x')).toBe(text);
  });

  it('adds a first member to empty and non-empty objects', () => {
    expect(JSON.parse(addTopLevelField('{"stream":true}', 'stream_options', { include_usage: true }))).toEqual({ stream_options: { include_usage: true }, stream: true });
    expect(JSON.parse(addTopLevelField(' { } ', 'a', 1))).toEqual({ a: 1 });
    const member = Buffer.from('"a":1');
    expect(addTopLevelBytes(Buffer.from('{"b":2}'), member).toString()).toBe('{"a":1,"b":2}');
    expect(addTopLevelBytes(Buffer.from(' {\n } '), member).toString()).toBe(' {"a":1\n } ');
  });

  it('replaces a value one object down, and nothing when the outer member is absent or not an object', () => {
    const text = '{"model":"top", "generateContentRequest" : {"contents":[{"model":"x"}],"model": "models/fast"},"n":1.0}';
    expect(replaceNestedValue(text, 'generateContentRequest', 'model', 'models/gemini-2.5-flash'))
      .toBe('{"model":"top", "generateContentRequest" : {"contents":[{"model":"x"}],"model": "models/gemini-2.5-flash"},"n":1.0}');
    expect(replaceNestedValue('{"contents":[]}', 'generateContentRequest', 'model', 'm')).toBe('{"contents":[]}');
    expect(replaceNestedValue('{"generateContentRequest":"model"}', 'generateContentRequest', 'model', 'm')).toBe('{"generateContentRequest":"model"}');
  });
});
