/**
 * Chat-completions response → Reply. Only the first choice is read (the gateway refuses `n > 1` across styles).
 * Non-standard `reasoning_content` / `reasoning` text becomes a thinking part ahead of the text.
 */
import type { Part, Reply } from '../model.ts';
import { isPlainObject, parseToolArguments } from '../tool-arguments.ts';
import { makeToolCallId } from '../tool-ids.ts';
import { translationError } from '../translation-error.ts';
import { decodeChatFinishReason } from './chat-stop-reason.ts';
import { decodeChatUsage } from './chat-usage.ts';
import type { ChatResponse } from './types.ts';

export function decodeChatResponse(json: unknown): Reply {
  if (!isPlainObject(json) || !Array.isArray(json.choices)) {
    throw translationError('The upstream answer is not a chat completion.');
  }
  const res = json as unknown as ChatResponse;
  const id = typeof res.id === 'string' && res.id !== '' ? res.id : makeToolCallId('call_', 'response', res.created ?? 0);
  const choice = res.choices[0];
  const msg = choice?.message;
  const parts: Part[] = [];
  const reasoning = msg?.reasoning_content ?? msg?.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') parts.push({ type: 'thinking', text: reasoning });
  if (typeof msg?.content === 'string' && msg.content !== '') parts.push({ type: 'text', text: msg.content });
  if (typeof msg?.refusal === 'string' && msg.refusal !== '') parts.push({ type: 'refusal', text: msg.refusal });
  (msg?.tool_calls ?? []).forEach((call, i) => {
    const argumentsText = call.function?.arguments ?? '';
    const name = call.function?.name ?? '';
    parts.push({
      type: 'tool_call',
      id: call.id || makeToolCallId('call_', id, i),
      name,
      arguments: parseToolArguments(argumentsText),
      argumentsText,
    });
  });
  const sawTool = parts.some((p) => p.type === 'tool_call');
  const reply: Reply = {
    id,
    model: String(res.model ?? ''),
    parts,
    stopReason: decodeChatFinishReason(choice?.finish_reason, sawTool),
    usage: decodeChatUsage(res.usage),
  };
  if (typeof res.created === 'number') reply.created = res.created;
  if (msg?.refusal && reply.stopReason === 'end') reply.stopReason = 'refusal';
  return reply;
}
