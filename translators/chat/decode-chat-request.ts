/**
 * Chat-completions request → Conversation.
 * - Leading `system`/`developer` messages become `Conversation.system`; later ones become `system` turns.
 * - `tool` messages become `tool` turns (one result each); the tool's name is looked up from the calls before them.
 * - `image_url` data URLs become base64 sources; `file.file_data` becomes a document.
 * - Fields this decoder does not map are kept in `extras.chat` for a chat upstream.
 * - `n > 1` is kept as `candidates`; encoders of styles without candidates refuse it with a 400.
 */
import type { Conversation, Part, ReasoningEffort, ResponseFormat, TextPart, ToolChoice, ToolDef, Turn } from '../model.ts';
import { parseDataUrl } from '../data-url.ts';
import { isPlainObject, parseToolArguments } from '../tool-arguments.ts';
import { makeToolCallId } from '../tool-ids.ts';
import { translationError } from '../translation-error.ts';
import type { ChatMessage, ChatRequest, ChatTextPart, ChatUserPart } from './types.ts';

const MAPPED = new Set([
  'model', 'messages', 'max_completion_tokens', 'max_tokens', 'temperature', 'top_p', 'top_k', 'n', 'stop', 'seed',
  'presence_penalty', 'frequency_penalty', 'stream', 'stream_options', 'tools', 'tool_choice', 'parallel_tool_calls',
  'response_format', 'reasoning_effort',
]);

const EFFORTS = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

export function decodeChatRequest(body: unknown): Conversation {
  if (!isPlainObject(body)) throw translationError('The request body must be a JSON object.');
  const req = body as ChatRequest;
  if (typeof req.model !== 'string' || req.model === '') throw translationError('`model` is required.', 'model');
  if (!Array.isArray(req.messages)) throw translationError('`messages` must be an array.', 'messages');
  const conv: Conversation = {
    model: req.model,
    system: [],
    turns: [],
    tools: [],
    sampling: {},
    stream: req.stream === true,
    extras: {},
    warnings: [],
  };
  decodeMessages(req.messages, conv);
  decodeTools(req, conv);
  decodeSampling(req, conv);
  if (typeof req.n === 'number' && req.n !== 1) conv.candidates = req.n;
  if (req.stream === true && req.stream_options?.include_usage === true) conv.streamUsage = true;
  const format = decodeResponseFormat(req.response_format);
  if (format !== undefined) conv.responseFormat = format;
  if (typeof req.reasoning_effort === 'string') {
    if (EFFORTS.has(req.reasoning_effort)) conv.reasoning = { effort: req.reasoning_effort as ReasoningEffort };
    else conv.warnings.push(`reasoning_effort "${req.reasoning_effort}" is not known and was ignored.`);
  }
  const session = req.prompt_cache_key ?? req.user;
  if (typeof session === 'string' && session !== '') conv.sessionKey = session;
  const extras: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) if (!MAPPED.has(k)) extras[k] = v;
  if (req.max_tokens != null && req.max_completion_tokens == null) extras.max_tokens_field = 'max_tokens';
  if (Object.keys(extras).length > 0) conv.extras.chat = extras;
  return conv;
}

function decodeMessages(messages: ChatMessage[], conv: Conversation): void {
  const names = new Map<string, string>();
  let leading = true;
  messages.forEach((msg, i) => {
    if (!isPlainObject(msg)) throw translationError(`messages[${i}] must be an object.`, `messages[${i}]`);
    switch (msg.role) {
      case 'system':
      case 'developer': {
        const parts = textParts(msg.content);
        if (leading) conv.system.push(...parts);
        else conv.turns.push({ role: 'system', parts });
        return;
      }
      case 'user':
        leading = false;
        conv.turns.push({ role: 'user', parts: userParts(msg.content, i) });
        return;
      case 'assistant': {
        leading = false;
        const parts: Part[] = [];
        if (typeof msg.reasoning_content === 'string' && msg.reasoning_content !== '') {
          parts.push({ type: 'thinking', text: msg.reasoning_content });
        }
        if (typeof msg.content === 'string') {
          if (msg.content !== '') parts.push({ type: 'text', text: msg.content });
        } else if (Array.isArray(msg.content)) {
          for (const p of msg.content) {
            if (p.type === 'text') parts.push(textPart(p));
            else if (p.type === 'refusal') parts.push({ type: 'refusal', text: p.refusal });
          }
        }
        if (typeof msg.refusal === 'string' && msg.refusal !== '') parts.push({ type: 'refusal', text: msg.refusal });
        const calls = msg.tool_calls ?? (msg.function_call ? [{ id: '', type: 'function' as const, function: msg.function_call }] : []);
        calls.forEach((call, j) => {
          const argumentsText = typeof call.function?.arguments === 'string' ? call.function.arguments : '';
          const name = call.function?.name ?? '';
          const id = typeof call.id === 'string' && call.id !== '' ? call.id : makeToolCallId('call_', i, j, name);
          names.set(id, name);
          parts.push({ type: 'tool_call', id, name, arguments: parseToolArguments(argumentsText), argumentsText });
        });
        conv.turns.push({ role: 'assistant', parts });
        return;
      }
      case 'tool': {
        leading = false;
        const callId = String(msg.tool_call_id ?? '');
        const turn: Turn = {
          role: 'tool',
          parts: [{ type: 'tool_result', callId, name: names.get(callId), content: textParts(msg.content), isError: false }],
        };
        conv.turns.push(turn);
        return;
      }
      case 'function': {
        leading = false;
        const callId = [...names].reverse().find(([, n]) => n === msg.name)?.[0] ?? msg.name;
        const content: TextPart[] = msg.content ? [{ type: 'text', text: msg.content }] : [];
        conv.turns.push({ role: 'tool', parts: [{ type: 'tool_result', callId, name: msg.name, content, isError: false }] });
        return;
      }
      default:
        throw translationError(`messages[${i}].role "${String((msg as { role?: unknown }).role)}" is not supported.`, `messages[${i}].role`);
    }
  });
}

function textPart(p: ChatTextPart): TextPart {
  const out: TextPart = { type: 'text', text: String(p.text ?? '') };
  if (p.cache_control?.type === 'ephemeral') out.cache = { ...p.cache_control };
  return out;
}

function textParts(content: string | ChatTextPart[] | null | undefined): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((p) => p?.type === 'text').map(textPart);
}

function userParts(content: string | ChatUserPart[], i: number): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw translationError(`messages[${i}].content must be a string or an array.`, `messages[${i}].content`);
  const parts: Part[] = [];
  for (const p of content) {
    if (p.type === 'text') parts.push(textPart(p));
    else if (p.type === 'image_url') {
      const url = String(p.image_url?.url ?? '');
      const inline = parseDataUrl(url);
      const detail = p.image_url?.detail;
      parts.push({
        type: 'image',
        source: inline ? { kind: 'base64', ...inline } : { kind: 'url', url },
        ...(detail ? { detail } : {}),
      });
    } else if (p.type === 'input_audio') {
      const format = p.input_audio?.format ?? 'wav';
      parts.push({ type: 'audio', source: { kind: 'base64', mediaType: format === 'mp3' ? 'audio/mpeg' : `audio/${format}`, data: p.input_audio?.data ?? '' } });
    } else if (p.type === 'file') {
      const f = p.file ?? {};
      const inline = f.file_data ? parseDataUrl(f.file_data) : undefined;
      if (inline) parts.push({ type: 'document', source: { kind: 'base64', ...inline }, ...(f.filename ? { filename: f.filename } : {}) });
      else if (f.file_id) parts.push({ type: 'document', source: { kind: 'file', fileId: f.file_id }, ...(f.filename ? { filename: f.filename } : {}) });
      else if (f.file_data) parts.push({ type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: f.file_data }, ...(f.filename ? { filename: f.filename } : {}) });
    } else {
      throw translationError(`messages[${i}] has a content part of unsupported type "${String((p as { type?: unknown }).type)}".`, `messages[${i}].content`);
    }
  }
  return parts;
}

function decodeTools(req: ChatRequest, conv: Conversation): void {
  const others: unknown[] = [];
  for (const t of req.tools ?? []) {
    if (t.type === 'function' && isPlainObject(t.function)) {
      const f = t.function as { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
      const tool: ToolDef = { name: f.name, parameters: f.parameters ?? { type: 'object', properties: {} } };
      if (f.description) tool.description = f.description;
      if (typeof f.strict === 'boolean') tool.strict = f.strict;
      conv.tools.push(tool);
    } else {
      others.push(t);
    }
  }
  if (others.length > 0) {
    conv.warnings.push(`${others.length} tool(s) that are not functions can only be sent to a chat-completions upstream.`);
    conv.extras.chat = { ...conv.extras.chat, other_tools: others };
  }
  const choice = decodeToolChoice(req.tool_choice);
  if (choice !== undefined) conv.toolChoice = choice;
  if (typeof req.parallel_tool_calls === 'boolean') conv.parallelToolCalls = req.parallel_tool_calls;
}

function decodeToolChoice(c: ChatRequest['tool_choice']): ToolChoice | undefined {
  if (c === 'auto' || c === 'none' || c === 'required') return c;
  if (isPlainObject(c) && isPlainObject(c.function) && typeof c.function.name === 'string') return { name: c.function.name };
  return undefined;
}

function decodeSampling(req: ChatRequest, conv: Conversation): void {
  const s = conv.sampling;
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (typeof max === 'number') s.maxTokens = max;
  if (typeof req.temperature === 'number') s.temperature = req.temperature;
  if (typeof req.top_p === 'number') s.topP = req.top_p;
  if (typeof req.top_k === 'number') s.topK = req.top_k;
  if (typeof req.seed === 'number') s.seed = req.seed;
  if (typeof req.presence_penalty === 'number') s.presencePenalty = req.presence_penalty;
  if (typeof req.frequency_penalty === 'number') s.frequencyPenalty = req.frequency_penalty;
  if (typeof req.stop === 'string') s.stop = [req.stop];
  else if (Array.isArray(req.stop)) s.stop = req.stop.filter((x) => typeof x === 'string');
}

function decodeResponseFormat(f: ChatRequest['response_format']): ResponseFormat | undefined {
  if (!isPlainObject(f)) return undefined;
  if (f.type === 'json_object') return { type: 'json' };
  if (f.type === 'json_schema' && isPlainObject(f.json_schema)) {
    const js = f.json_schema;
    const out: ResponseFormat = { type: 'json_schema', name: js.name, schema: js.schema ?? {} };
    if (typeof js.strict === 'boolean') out.strict = js.strict;
    return out;
  }
  if (f.type === 'text') return { type: 'text' };
  return undefined;
}
