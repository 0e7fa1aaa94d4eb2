/**
 * Conversation → chat-completions request (for `openai` and `openai-compatible` upstreams).
 * - `system` becomes one leading system message; `system` turns become system messages in place, except between
 *   tool calls and their results, where they follow the results (system-turn-order.ts).
 * - Tool results (in `tool` turns or inside user turns) become one `tool` message each, placed right after the
 *   assistant turn, ahead of the rest of the user turn; images inside results, which a tool message cannot carry,
 *   follow in a user message.
 * - Thinking and redacted thinking are not sent (chat upstreams have no way to receive them); cache markers are
 *   dropped (official chat servers reject unknown part fields).
 * - Streaming always asks for `stream_options.include_usage` so usage can be metered (reference §E7).
 */
import { systemAfterToolResults } from '../system-turn-order.ts';
import type { Conversation, DocumentPart, ImagePart, Part, ReasoningEffort, TextPart, ToolResultPart } from '../model.ts';
import { toDataUrl } from '../data-url.ts';
import { toolArgumentsText } from '../tool-arguments.ts';
import type { ChatMessage, ChatRequest, ChatTextPart, ChatToolCall, ChatUserPart } from './types.ts';
import { applySamplingRules, CHAT_SAMPLING } from '../sampling-rules.ts';

export interface EncodeChatRequestOptions {
  /** Field for the output limit: `max_completion_tokens` (default) or the legacy `max_tokens` some servers need. */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /**
   * Whether to send `reasoning_effort` (default true). Models without reasoning answer 400 to it; the caller knows
   * the model, the translator does not.
   */
  sendReasoningEffort?: boolean;
}

export function encodeChatRequest(conv: Conversation, options: EncodeChatRequestOptions = {}): ChatRequest {
  const { other_tools: otherTools, max_tokens_field: legacyField, ...extras } = conv.extras.chat ?? {};
  const req: ChatRequest = { ...extras, model: conv.model, messages: encodeMessages(conv) };
  const effort = reasoningEffort(conv);
  const sendsEffort = effort !== undefined && options.sendReasoningEffort !== false;
  const s = applySamplingRules(conv.sampling, CHAT_SAMPLING, 'chat-completions', sendsEffort && effort !== 'none', conv.warnings);
  if (s.maxTokens !== undefined) {
    const field = options.maxTokensField ?? (legacyField === 'max_tokens' ? 'max_tokens' : 'max_completion_tokens');
    req[field] = s.maxTokens;
  }
  if (s.temperature !== undefined) req.temperature = s.temperature;
  if (s.topP !== undefined) req.top_p = s.topP;
  if (s.stop !== undefined && s.stop.length > 0) req.stop = s.stop;
  if (s.seed !== undefined) req.seed = s.seed;
  if (s.presencePenalty !== undefined) req.presence_penalty = s.presencePenalty;
  if (s.frequencyPenalty !== undefined) req.frequency_penalty = s.frequencyPenalty;
  if (conv.candidates !== undefined && conv.candidates !== 1) req.n = conv.candidates;
  if (conv.stream) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  const tools = [
    ...conv.tools.map((t) => ({
      type: 'function' as const,
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters,
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
      },
    })),
    ...(Array.isArray(otherTools) ? (otherTools as { type: string }[]) : []),
  ];
  if (tools.length > 0) {
    req.tools = tools;
    const c = conv.toolChoice;
    if (c !== undefined) req.tool_choice = typeof c === 'string' ? c : { type: 'function', function: { name: c.name } };
    if (conv.parallelToolCalls !== undefined) req.parallel_tool_calls = conv.parallelToolCalls;
  }
  const f = conv.responseFormat;
  if (f?.type === 'json') req.response_format = { type: 'json_object' };
  else if (f?.type === 'json_schema') {
    req.response_format = {
      type: 'json_schema',
      json_schema: { name: f.name ?? 'response', schema: f.schema, ...(f.strict !== undefined ? { strict: f.strict } : {}) },
    };
  }
  if (effort !== undefined) {
    if (!sendsEffort) conv.warnings.push('reasoning_effort was dropped: the model does not reason.');
    else req.reasoning_effort = effort;
  }
  return req;
}

/** An effort for the chat style: the named effort, or one derived from a thinking budget. */
function reasoningEffort(conv: Conversation): ReasoningEffort | undefined {
  const r = conv.reasoning;
  if (r === undefined) return undefined;
  if (r.effort !== undefined) return r.effort;
  const b = r.budgetTokens;
  if (b === undefined || b < 0) return undefined;
  if (b === 0) return 'none';
  return b <= 2048 ? 'low' : b <= 12288 ? 'medium' : 'high';
}

function encodeMessages(conv: Conversation): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = conv.system.filter((p) => p.text !== '');
  if (system.length > 0) out.push({ role: 'system', content: joinText(system) });
  let group: Part[][] = [];
  const flush = () => {
    if (group.length > 0) encodeUserGroup(group, out, conv.warnings);
    group = [];
  };
  for (const turn of systemAfterToolResults(conv.turns)) {
    if (turn.role === 'user' || turn.role === 'tool') {
      group.push(turn.parts);
      continue;
    }
    flush();
    if (turn.role === 'system') {
      const text = turn.parts.filter((p): p is TextPart => p.type === 'text');
      if (text.length > 0) out.push({ role: 'system', content: joinText(text) });
    } else {
      const msg = encodeAssistant(turn.parts, conv.warnings);
      if (msg !== undefined) out.push(msg);
    }
  }
  flush();
  return out;
}

function joinText(parts: TextPart[]): string {
  return parts.map((p) => p.text).join('\n\n');
}

function encodeAssistant(parts: Part[], warnings: string[]): ChatMessage | undefined {
  const text: ChatTextPart[] = [];
  const calls: ChatToolCall[] = [];
  let refusal: string | undefined;
  for (const p of parts) {
    if (p.type === 'text' && p.text !== '') text.push({ type: 'text', text: p.text });
    else if (p.type === 'refusal') refusal = (refusal ?? '') + p.text;
    else if (p.type === 'tool_call') {
      calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: toolArgumentsText(p.arguments, p.argumentsText) } });
    } else if (p.type !== 'thinking' && p.type !== 'redacted_thinking') {
      warnings.push(`An assistant ${p.type} part cannot be sent in the chat-completions style and was dropped.`);
    }
  }
  if (text.length === 0 && calls.length === 0 && refusal === undefined) return undefined;
  return {
    role: 'assistant',
    content: text.length === 0 ? null : text.length === 1 ? text[0].text : text,
    ...(refusal !== undefined ? { refusal } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

/**
 * A run of user/tool turns: every tool result first (tool messages must follow the assistant's calls), then media
 * the results carried, then each user turn's own content.
 */
function encodeUserGroup(turns: Part[][], out: ChatMessage[], warnings: string[]): void {
  const fromResults: ChatUserPart[] = [];
  for (const parts of turns) {
    for (const p of parts) if (p.type === 'tool_result') out.push(encodeToolResult(p, fromResults, warnings));
  }
  pushUser(fromResults, out);
  for (const parts of turns) {
    const content: ChatUserPart[] = [];
    for (const p of parts) {
      if (p.type === 'tool_result') continue;
      const part = encodeUserPart(p, warnings);
      if (part !== undefined) content.push(part);
    }
    pushUser(content, out);
  }
}

function pushUser(content: ChatUserPart[], out: ChatMessage[]): void {
  if (content.length === 0) return;
  const single = content.length === 1 && content[0].type === 'text';
  out.push({ role: 'user', content: single ? (content[0] as ChatTextPart).text : content });
}

function encodeToolResult(p: ToolResultPart, images: ChatUserPart[], warnings: string[]): ChatMessage {
  const text: string[] = [];
  for (const c of p.content) {
    if (c.type === 'text') text.push(c.text);
    else {
      const part = encodeUserPart(c, warnings);
      if (part !== undefined) images.push(part);
    }
  }
  return { role: 'tool', tool_call_id: p.callId, content: text.join('\n\n') };
}

function encodeUserPart(p: Part, warnings: string[]): ChatUserPart | undefined {
  switch (p.type) {
    case 'text':
      return p.text === '' ? undefined : { type: 'text', text: p.text };
    case 'refusal':
      return { type: 'text', text: p.text };
    case 'image':
      return encodeImage(p, warnings);
    case 'audio': {
      const s = p.source;
      if (s.kind === 'base64') {
        const format = s.mediaType === 'audio/mpeg' || s.mediaType === 'audio/mp3' ? 'mp3' : s.mediaType.replace(/^audio\//, '');
        return { type: 'input_audio', input_audio: { data: s.data, format } };
      }
      warnings.push('Audio that is not inline base64 cannot be sent in the chat-completions style and was dropped.');
      return undefined;
    }
    case 'document':
      return encodeDocument(p, warnings);
    default:
      warnings.push(`A user ${p.type} part cannot be sent in the chat-completions style and was dropped.`);
      return undefined;
  }
}

function encodeImage(p: ImagePart, warnings: string[]): ChatUserPart | undefined {
  const s = p.source;
  const detail = p.detail ? { detail: p.detail } : {};
  if (s.kind === 'url') return { type: 'image_url', image_url: { url: s.url, ...detail } };
  if (s.kind === 'base64') return { type: 'image_url', image_url: { url: toDataUrl(s.mediaType, s.data), ...detail } };
  warnings.push(`An image given as ${s.kind} cannot be sent in the chat-completions style and was dropped.`);
  return undefined;
}

function encodeDocument(p: DocumentPart, warnings: string[]): ChatUserPart | undefined {
  const s = p.source;
  const filename = p.filename ?? p.title;
  const name = filename ? { filename } : {};
  if (s.kind === 'base64') return { type: 'file', file: { file_data: toDataUrl(s.mediaType, s.data), ...name } };
  if (s.kind === 'file') return { type: 'file', file: { file_id: s.fileId, ...name } };
  if (s.kind === 'text') return { type: 'text', text: p.title ? `${p.title}\n\n${s.text}` : s.text };
  warnings.push('A document given by URL cannot be sent in the chat-completions style and was dropped.');
  return undefined;
}
