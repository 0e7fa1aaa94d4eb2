/**
 * Reply → messages response for a messages client.
 */
import type { Reply } from '../model.ts';
import { encodeBlock } from './encode-messages-blocks.ts';
import { encodeMessagesStopReason } from './messages-stop-reason.ts';
import { encodeMessagesUsage } from './messages-usage.ts';
import type { MessagesContentBlock, MessagesResponse } from './types.ts';

export function encodeMessagesResponse(reply: Reply): MessagesResponse {
  const content: MessagesContentBlock[] = [];
  for (const p of reply.parts) {
    const block = encodeBlock(p, 'assistant', [], true);
    if (block !== undefined) content.push(block);
  }
  return {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content,
    stop_reason: encodeMessagesStopReason(reply.stopReason),
    stop_sequence: reply.stopSequence ?? null,
    usage: encodeMessagesUsage(reply.usage),
  };
}
