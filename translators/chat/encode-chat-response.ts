/**
 * Reply → chat-completions response (one choice). Thinking becomes the non-standard `reasoning_content` field,
 * which official SDKs ignore and several clients display.
 */
import type { Reply } from '../model.ts';
import { toolArgumentsText } from '../tool-arguments.ts';
import { encodeChatFinishReason } from './chat-stop-reason.ts';
import { encodeChatUsage } from './chat-usage.ts';
import type { ChatResponse, ChatResponseMessage, ChatToolCall } from './types.ts';

export function encodeChatResponse(reply: Reply, options: { created?: number } = {}): ChatResponse {
  let text = '';
  let hasText = false;
  let reasoning = '';
  let refusal: string | undefined;
  const calls: ChatToolCall[] = [];
  for (const p of reply.parts) {
    if (p.type === 'text') {
      text += p.text;
      hasText = true;
    } else if (p.type === 'thinking') reasoning += p.text;
    else if (p.type === 'refusal') refusal = (refusal ?? '') + p.text;
    else if (p.type === 'tool_call') {
      calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: toolArgumentsText(p.arguments, p.argumentsText) } });
    }
  }
  // `refusal` and `logprobs` are required (nullable) by the API's schema: strictly typed clients need them.
  const message: ChatResponseMessage = { role: 'assistant', content: hasText ? text : null, refusal: refusal ?? null };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  return {
    id: reply.id,
    object: 'chat.completion',
    created: options.created ?? reply.created ?? Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: encodeChatFinishReason(reply.stopReason) }],
    usage: encodeChatUsage(reply.usage),
  };
}
