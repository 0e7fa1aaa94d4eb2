/**
 * Mid-conversation system turns (messages style `role: "system"` inside `messages`) may come between an assistant
 * turn's tool calls and the results that answer them. Styles that need the results right after the calls (chat:
 * `tool` messages must follow the assistant message with `tool_calls`) get such system turns moved to just after
 * those results, keeping their order; nothing else moves.
 */
import type { Turn } from './model.ts';

function hasResults(turn: Turn): boolean {
  return (turn.role === 'user' || turn.role === 'tool') && turn.parts.some((p) => p.type === 'tool_result');
}

export function systemAfterToolResults(turns: readonly Turn[]): Turn[] {
  const out: Turn[] = [];
  let held: Turn[] = [];
  let afterCalls = false;
  for (const turn of turns) {
    if (turn.role === 'system' && (afterCalls || held.length > 0)) {
      held.push(turn);
      continue;
    }
    if (held.length > 0 && !hasResults(turn)) {
      out.push(...held);
      held = [];
    }
    out.push(turn);
    afterCalls = turn.role === 'assistant' ? turn.parts.some((p) => p.type === 'tool_call') : afterCalls && hasResults(turn);
  }
  out.push(...held);
  return out;
}
