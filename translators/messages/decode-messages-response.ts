/**
 * Messages response → Reply. Blocks the model cannot hold (server tool results, …) are skipped.
 */
import type { Part, Reply } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { translationError } from '../translation-error.ts';
import { decodeBlock } from './decode-messages-request.ts';
import { decodeMessagesStopReason } from './messages-stop-reason.ts';
import { decodeMessagesUsage } from './messages-usage.ts';
import type { MessagesResponse } from './types.ts';

export function decodeMessagesResponse(json: unknown): Reply {
  if (!isPlainObject(json) || !Array.isArray(json.content)) throw translationError('The upstream answer is not a message.');
  const res = json as unknown as MessagesResponse;
  const parts: Part[] = [];
  for (const block of res.content) {
    const p = decodeBlock(block);
    if (p !== undefined) parts.push(p);
  }
  const reply: Reply = {
    id: String(res.id ?? ''),
    model: String(res.model ?? ''),
    parts,
    stopReason: decodeMessagesStopReason(res.stop_reason),
    usage: decodeMessagesUsage(res.usage),
  };
  if (typeof res.stop_sequence === 'string') reply.stopSequence = res.stop_sequence;
  return reply;
}
