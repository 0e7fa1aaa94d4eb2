// Output items of the responses style ↔ internal parts, shared by the response, request and stream translators.
// - `message` items hold `output_text` (with `annotations`, kept as citations) and `refusal` content.
// - `function_call` items: `call_id` is the call id every other style sees; the item `id` (`fc_…`) is not kept.
// - `reasoning` items become thinking parts: the summary texts joined by a blank line, `encrypted_content` as the
//   signature, and the item id kept for replay (reference §F5: "a reasoning summary becomes a thinking block
//   signed with the final encrypted_content").
// @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-output

import type { Part, ThinkingPart, ToolCallPart, ToolRenames } from '../model.ts';
import { parseToolArguments, toolArgumentsText } from '../tool-arguments.ts';
import type { ResponsesFunctionCallItem, ResponsesOutputItem, ResponsesOutputMessage, ResponsesOutputText, ResponsesReasoningItem, ResponsesRefusal } from './types.ts';

export function decodeReasoningItem(item: ResponsesReasoningItem): ThinkingPart {
  const summary = Array.isArray(item.summary) ? item.summary.map((s) => s.text).filter((t) => typeof t === 'string') : [];
  const raw = Array.isArray(item.content) ? item.content.map((c) => c.text).filter((t) => typeof t === 'string') : [];
  const part: ThinkingPart = { type: 'thinking', text: (summary.length > 0 ? summary : raw).join('\n\n'), origin: 'responses' };
  if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '') part.signature = item.encrypted_content;
  if (typeof item.id === 'string' && item.id !== '') part.itemId = item.id;
  return part;
}

export function decodeFunctionCallItem(item: ResponsesFunctionCallItem): ToolCallPart {
  const text = typeof item.arguments === 'string' ? item.arguments : '';
  return { type: 'tool_call', id: item.call_id ?? item.id ?? '', name: item.name ?? '', arguments: parseToolArguments(text), argumentsText: text };
}

export function decodeMessageContent(content: ResponsesOutputMessage['content'] | string): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: Part[] = [];
  for (const c of content ?? []) {
    if (c.type === 'output_text' && typeof c.text === 'string') {
      parts.push(Array.isArray(c.annotations) && c.annotations.length > 0 ? { type: 'text', text: c.text, citations: c.annotations } : { type: 'text', text: c.text });
    } else if (c.type === 'refusal' && typeof c.refusal === 'string') parts.push({ type: 'refusal', text: c.refusal });
  }
  return parts;
}

/** The assistant parts of a response's `output`; built-in tool items (web_search_call, …) are skipped. */
export function decodeOutputItems(items: ResponsesOutputItem[]): Part[] {
  const parts: Part[] = [];
  for (const item of items) {
    if (item.type === 'message') parts.push(...decodeMessageContent(item.content));
    else if (item.type === 'function_call') parts.push(decodeFunctionCallItem(item));
    else if (item.type === 'reasoning') parts.push(decodeReasoningItem(item));
  }
  return parts;
}

/** A call's name as the client knows it: the function's own name and its namespace when the gateway flattened it. */
export function clientToolName(name: string, renames: ToolRenames | undefined): { name: string; namespace?: string } {
  const r = renames !== undefined && Object.hasOwn(renames, name) ? renames[name] : undefined;
  return r === undefined ? { name } : { name: r.name, ...(r.namespace !== undefined ? { namespace: r.namespace } : {}) };
}

/** Item ids for a response: `<prefix>_<seed>_<k>`, the seed reduced to safe characters. */
export function responsesItemId(prefix: 'msg' | 'fc' | 'rs', seed: string, k: number): string {
  return `${prefix}_${seed.replace(/[^A-Za-z0-9]/g, '')}_${k}`;
}

export function encodeReasoningItem(part: ThinkingPart, id: string): ResponsesReasoningItem & { id: string } {
  const item: ResponsesReasoningItem & { id: string } = {
    type: 'reasoning', id, summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
  };
  if (part.origin === 'responses' && part.signature !== undefined) item.encrypted_content = part.signature;
  return item;
}

/**
 * Assistant parts → output items: adjacent text and refusal parts share one message item; each call and each
 * thinking part is an item of its own. Thinking from another family keeps its text but not its signature.
 */
export function encodeOutputItems(parts: Part[], seed: string, renames?: ToolRenames): ResponsesOutputItem[] {
  const items: ResponsesOutputItem[] = [];
  let message: ResponsesOutputMessage | undefined;
  parts.forEach((part, k) => {
    if (part.type === 'text' || part.type === 'refusal') {
      if (message === undefined) {
        message = { type: 'message', id: responsesItemId('msg', seed, k), role: 'assistant', status: 'completed', content: [] };
        items.push(message);
      }
      const c: ResponsesOutputText | ResponsesRefusal = part.type === 'text'
        ? { type: 'output_text', text: part.text, annotations: (part.citations ?? []) as ResponsesOutputText['annotations'], logprobs: [] }
        : { type: 'refusal', refusal: part.text };
      message.content.push(c);
      return;
    }
    message = undefined;
    if (part.type === 'tool_call') {
      items.push({
        type: 'function_call', id: responsesItemId('fc', seed, k), call_id: part.id, ...clientToolName(part.name, renames),
        arguments: toolArgumentsText(part.arguments, part.argumentsText), status: 'completed',
      });
    } else if (part.type === 'thinking') {
      if (part.text !== '' || (part.origin === 'responses' && part.signature !== undefined)) {
        items.push(encodeReasoningItem(part, part.origin === 'responses' && part.itemId !== undefined ? part.itemId : responsesItemId('rs', seed, k)));
      }
    }
  });
  return items;
}
