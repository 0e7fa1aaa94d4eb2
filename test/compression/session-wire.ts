/** A generated session's first n turns as a request body of a wire style (what an agent would send on turn n). */
import type { StyleName } from '../../translators/model.ts';
import { getStyle } from '../../translators/styles.ts';
import type { Session } from './agent-session.ts';

export function sessionBody(session: Session, turns: number, style: StyleName, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const conv = { ...session.conversation, model, turns: session.conversation.turns.slice(0, turns), warnings: [] };
  return { ...(getStyle(style).encodeRequest(conv) as Record<string, unknown>), ...extra };
}

/** Tool call and result ids in order, from a messages-style body. */
export function messagesToolIds(body: { messages: { content: unknown }[] }): string[] {
  const ids: string[] = [];
  for (const m of body.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type: string; id?: string; tool_use_id?: string }[]) {
      if (b.type === 'tool_use') ids.push(`call:${b.id}`);
      if (b.type === 'tool_result') ids.push(`result:${b.tool_use_id}`);
    }
  }
  return ids;
}
