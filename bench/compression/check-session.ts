/** What compression must keep in a session (issue 13 targets): every tool pair, and every marked span. */
import type { Conversation, Turn } from '../../translators/model.ts';

/** Tool call and result ids in order (`call:<id>`, `result:<id>`). */
export function toolPairIds(turns: readonly Turn[]): string[] {
  const ids: string[] = [];
  for (const t of turns) {
    for (const p of t.parts) {
      if (p.type === 'tool_call') ids.push(`call:${p.id}`);
      if (p.type === 'tool_result') ids.push(`result:${p.callId}`);
    }
  }
  return ids;
}

/** The text of every tool output, joined (spans must survive here, not only in the user's own words). */
export function toolOutputText(conv: Conversation): string {
  const out: string[] = [];
  for (const t of conv.turns) for (const p of t.parts) if (p.type === 'tool_result') for (const c of p.content) if (c.type === 'text') out.push(c.text);
  return out.join('\n');
}

export function checkSession(s: { conversation: Conversation; spans: string[] }, compressed: Conversation): { brokenPairs: number; spansKept: number } {
  const before = toolPairIds(s.conversation.turns);
  const after = toolPairIds(compressed.turns);
  let brokenPairs = Math.abs(before.length - after.length);
  for (let i = 0; i < Math.min(before.length, after.length); i++) if (before[i] !== after[i]) brokenPairs++;
  const text = toolOutputText(compressed);
  return { brokenPairs, spansKept: s.spans.filter((x) => text.includes(x)).length };
}
