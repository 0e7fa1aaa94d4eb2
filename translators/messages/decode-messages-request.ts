/**
 * Messages request → Conversation (also used for `count_tokens`, whose body has no `max_tokens`).
 * - `system` (a string or text blocks) becomes `Conversation.system`, cache markers kept.
 * - Turns keep their role; `tool_result` blocks stay in the user turn.
 * - Thinking blocks keep their signatures with origin 'messages'; an empty signature counts as none.
 * - Server tools (a versioned `type`) and unknown fields go to `extras.messages`.
 * - Deferred tools (`defer_loading: true`) not yet loaded by a tool search are left out with a warning
 *   (deferred-tools.ts); a `tool_reference` in a tool result becomes a line of text naming the loaded tool.
 */
import type {
  CacheMarker, Conversation, DocumentPart, ImagePart, MediaSource, Part, ReasoningEffort, TextPart, ToolDef, ToolResultContent, Turn,
} from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { translationError } from '../translation-error.ts';
import { deferredToolsWarning } from '../deferred-tools-warning.ts';
import { loadedToolNames } from './deferred-tools.ts';
import type {
  MessagesCacheControl, MessagesContentBlock, MessagesDocumentBlock, MessagesImageBlock, MessagesRequest, MessagesTextBlock,
} from './types.ts';

const MAPPED = new Set([
  'model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'stream', 'tools',
  'tool_choice', 'thinking',
]);
const EFFORTS = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

export function decodeMessagesRequest(body: unknown): Conversation {
  if (!isPlainObject(body)) throw translationError('The request body must be a JSON object.');
  const req = body as MessagesRequest;
  if (typeof req.model !== 'string' || req.model === '') throw translationError('`model` is required.', 'model');
  if (!Array.isArray(req.messages)) throw translationError('`messages` must be an array.', 'messages');
  const conv: Conversation = {
    model: req.model,
    system: decodeSystem(req.system),
    turns: [],
    tools: [],
    sampling: {},
    stream: req.stream === true,
    extras: {},
    warnings: [],
  };
  const names = new Map<string, string>();
  req.messages.forEach((m, i) => {
    if (!isPlainObject(m) || (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system')) {
      throw translationError(`messages[${i}].role must be user or assistant.`, `messages[${i}].role`);
    }
    conv.turns.push(decodeTurn(m.role, m.content, i, names, conv.warnings));
  });
  const s = conv.sampling;
  if (typeof req.max_tokens === 'number') s.maxTokens = req.max_tokens;
  if (typeof req.temperature === 'number') s.temperature = req.temperature;
  if (typeof req.top_p === 'number') s.topP = req.top_p;
  if (typeof req.top_k === 'number') s.topK = req.top_k;
  if (Array.isArray(req.stop_sequences) && req.stop_sequences.length > 0) s.stop = req.stop_sequences.filter((x) => typeof x === 'string');
  const extras: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) if (!MAPPED.has(k)) extras[k] = v;
  decodeTools(req, conv, extras);
  decodeReasoning(req, conv);
  const format = req.output_config?.format;
  if (isPlainObject(format) && format.type === 'json_schema') conv.responseFormat = { type: 'json_schema', schema: format.schema };
  const user = req.metadata?.user_id;
  if (typeof user === 'string' && user !== '') conv.sessionKey = user;
  if (Object.keys(extras).length > 0) conv.extras.messages = extras;
  return conv;
}

export function cacheMarker(c: MessagesCacheControl | null | undefined): { cache?: CacheMarker } {
  if (!isPlainObject(c) || c.type !== 'ephemeral') return {};
  return { cache: c.ttl ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' } };
}

function decodeSystem(system: MessagesRequest['system']): TextPart[] {
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  if (!Array.isArray(system)) return [];
  return system.filter((b) => b?.type === 'text').map(decodeText);
}

export function decodeText(b: MessagesTextBlock): TextPart {
  const out: TextPart = { type: 'text', text: String(b.text ?? ''), ...cacheMarker(b.cache_control) };
  if (Array.isArray(b.citations) && b.citations.length > 0) out.citations = b.citations;
  return out;
}

function decodeTurn(
  role: 'user' | 'assistant' | 'system', content: string | MessagesContentBlock[], i: number, names: Map<string, string>, warnings: string[],
): Turn {
  if (typeof content === 'string') return { role, parts: content === '' ? [] : [{ type: 'text', text: content }] };
  if (!Array.isArray(content)) throw translationError(`messages[${i}].content must be a string or an array.`, `messages[${i}].content`);
  const parts: Part[] = [];
  for (const block of content) {
    const part = decodeBlock(block, names);
    if (part !== undefined) parts.push(part);
    else warnings.push(`A ${String((block as { type?: unknown })?.type)} block in messages[${i}] has no equivalent in other styles and was dropped.`);
  }
  return { role, parts };
}

/** One content block (request or response) → a part; undefined for blocks the model cannot hold. */
export function decodeBlock(block: MessagesContentBlock, names?: Map<string, string>): Part | undefined {
  switch (block?.type) {
    case 'text':
      return decodeText(block);
    case 'image':
      return decodeImage(block);
    case 'document':
      return decodeDocument(block);
    case 'tool_use': {
      const input = isPlainObject(block.input) ? block.input : {};
      names?.set(block.id, block.name);
      return { type: 'tool_call', id: block.id, name: block.name, arguments: input, argumentsText: JSON.stringify(input), ...cacheMarker(block.cache_control) };
    }
    case 'tool_result': {
      const c = block.content;
      const content: ToolResultContent[] = typeof c === 'string'
        ? (c === '' ? [] : [{ type: 'text', text: c }])
        : (Array.isArray(c) ? c : []).flatMap((b) => {
          const p = b.type === 'text' ? decodeText(b) : b.type === 'image' ? decodeImage(b) : b.type === 'document' ? decodeDocument(b)
            : toolReferenceText(b);
          return p === undefined ? [] : [p];
        });
      const name = names?.get(block.tool_use_id);
      return {
        type: 'tool_result', callId: block.tool_use_id, ...(name !== undefined ? { name } : {}), content, isError: block.is_error === true,
        ...cacheMarker(block.cache_control),
      };
    }
    case 'thinking':
      return block.signature
        ? { type: 'thinking', text: block.thinking ?? '', signature: block.signature, origin: 'messages' }
        : { type: 'thinking', text: block.thinking ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data, origin: 'messages' };
    default:
      return undefined;
  }
}

/** A tool search's `tool_reference` result says which tool is now loaded; other styles get that as text. */
function toolReferenceText(b: { type: string; tool_name?: unknown }): TextPart | undefined {
  return b.type === 'tool_reference' && typeof b.tool_name === 'string' ? { type: 'text', text: `Tool loaded: ${b.tool_name}` } : undefined;
}

function decodeImage(b: MessagesImageBlock): ImagePart | undefined {
  const source = decodeSource(b.source);
  return source === undefined ? undefined : { type: 'image', source, ...cacheMarker(b.cache_control) };
}

function decodeDocument(b: MessagesDocumentBlock): DocumentPart | undefined {
  const s = b.source;
  let source: MediaSource | undefined;
  if (s?.type === 'text') source = { kind: 'text', mediaType: s.media_type ?? 'text/plain', text: s.data };
  else if (s?.type === 'content') {
    const text = typeof s.content === 'string' ? s.content : (s.content ?? []).filter((x) => x.type === 'text').map((x) => x.text).join('\n\n');
    source = { kind: 'text', mediaType: 'text/plain', text };
  } else source = decodeSource(s);
  if (source === undefined) return undefined;
  const out: DocumentPart = { type: 'document', source, ...cacheMarker(b.cache_control) };
  if (b.title) out.title = b.title;
  if (b.context) out.context = b.context;
  if (b.citations?.enabled === true) out.citations = true;
  return out;
}

function decodeSource(s: { type: string; [k: string]: unknown } | undefined): MediaSource | undefined {
  if (s?.type === 'base64') return { kind: 'base64', mediaType: String(s.media_type ?? ''), data: String(s.data ?? '') };
  if (s?.type === 'url') return { kind: 'url', url: String(s.url ?? '') };
  if (s?.type === 'file') return { kind: 'file', fileId: String(s.file_id ?? '') };
  return undefined;
}

function decodeTools(req: MessagesRequest, conv: Conversation, extras: Record<string, unknown>): void {
  const server: unknown[] = [];
  const deferred: MessagesRequest['tools'] & object = [];
  const loaded = (req.tools ?? []).some((t) => t.defer_loading === true) ? loadedToolNames(req.messages) : new Set<string>();
  for (const t of req.tools ?? []) {
    if (t.type !== undefined && t.type !== 'custom') {
      server.push(t);
      continue;
    }
    if (t.defer_loading === true && !loaded.has(t.name)) {
      deferred.push(t);
      continue;
    }
    const tool: ToolDef = { name: t.name, parameters: t.input_schema ?? { type: 'object', properties: {} }, ...cacheMarker(t.cache_control) };
    if (t.description) tool.description = t.description;
    if (typeof t.strict === 'boolean') tool.strict = t.strict;
    conv.tools.push(tool);
  }
  if (server.length > 0) {
    extras.server_tools = server;
    conv.warnings.push(`${server.length} server tool(s) can only be sent to a messages-style upstream.`);
  }
  if (deferred.length > 0) {
    // Kept for a messages upstream (a compressed same-style call is encoded again), which loads them itself.
    extras.deferred_tools = deferred;
    conv.warnings.push(deferredToolsWarning(deferred.map((t) => t.name)));
  }
  const c = req.tool_choice;
  if (isPlainObject(c)) {
    if (c.type === 'auto' || c.type === 'none') conv.toolChoice = c.type;
    else if (c.type === 'any') conv.toolChoice = 'required';
    else if (c.type === 'tool') conv.toolChoice = { name: c.name };
    if (c.disable_parallel_tool_use === true) conv.parallelToolCalls = false;
  }
}

function decodeReasoning(req: MessagesRequest, conv: Conversation): void {
  const t = req.thinking;
  const effort = req.output_config?.effort;
  if (isPlainObject(t)) {
    if (t.type === 'enabled' && typeof t.budget_tokens === 'number') conv.reasoning = { budgetTokens: t.budget_tokens };
    else if (t.type === 'adaptive') conv.reasoning = { adaptive: true };
    else if (t.type === 'disabled') conv.reasoning = { effort: 'none' };
  }
  if (typeof effort === 'string' && EFFORTS.has(effort) && conv.reasoning?.effort !== 'none') {
    conv.reasoning = { ...conv.reasoning, effort: effort as ReasoningEffort };
  }
}
