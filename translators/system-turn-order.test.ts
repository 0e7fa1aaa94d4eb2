import { describe, expect, it } from 'vitest';
import type { Turn } from './model.ts';
import { systemAfterToolResults } from './system-turn-order.ts';

const user = (text: string): Turn => ({ role: 'user', parts: [{ type: 'text', text }] });
const system = (text: string): Turn => ({ role: 'system', parts: [{ type: 'text', text }] });
const calls: Turn = { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: {}, argumentsText: '{}' }] };
const result = (id: string, role: 'user' | 'tool' = 'tool'): Turn => ({ role, parts: [{ type: 'tool_result', callId: id, content: [], isError: false }] });
const label = (turns: Turn[]) => turns.map((t) => (t.parts[0].type === 'text' ? t.parts[0].text : `${t.role}:${t.parts[0].type}`));

describe('systemAfterToolResults', () => {
  it('moves system turns between calls and their results to after the results, in order', () => {
    expect(label(systemAfterToolResults([user('q'), calls, system('s1'), system('s2'), result('c1'), result('c2'), user('next')])))
      .toEqual(['q', 'assistant:tool_call', 'tool:tool_result', 'tool:tool_result', 's1', 's2', 'next']);
    expect(label(systemAfterToolResults([calls, system('s'), result('c1', 'user')]))).toEqual(['assistant:tool_call', 'user:tool_result', 's']);
  });

  it('leaves system turns elsewhere where they are', () => {
    const turns = [system('a'), user('q'), system('b'), calls, result('c1'), system('c'), user('next')];
    expect(label(systemAfterToolResults(turns))).toEqual(['a', 'q', 'b', 'assistant:tool_call', 'tool:tool_result', 'c', 'next']);
    expect(label(systemAfterToolResults([calls, system('s'), user('no results')]))).toEqual(['assistant:tool_call', 's', 'no results']);
  });
});
