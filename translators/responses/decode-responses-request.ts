// Responses-style request → Conversation (reference §F1). Used for clients of this style and for tests.
// - `instructions` and leading system/developer messages → `Conversation.system`; later ones → system turns.
// - `message` items → user/assistant turns; consecutive `function_call` and `reasoning` items join the assistant
//   turn before them; each `function_call_output` → a tool turn (its name looked up from the calls before it).
// - Built-in tools (`web_search`, `file_search`, `custom`, …) run at the responses API, not at another style's
//   upstream: dropped with a warning (kept opaque in extras for a responses upstream); a `tool_choice` that forces
//   one cannot be honoured without them and is refused.
// - `namespace` tools are groups of functions: each function becomes a tool `<namespace>__<name>` (namespace-tools.ts;
//   earlier calls with a `namespace` get the same name), the group itself is kept in extras for a responses upstream.
// - Deferred functions (`defer_loading: true`) no tool search has loaded are left out with one warning
//   (deferred-tools.ts), kept in extras for a responses upstream.
// - `previous_response_id` and `item_reference` are resolved from stored responses before decoding (the gateway's
//   /v1/responses route); one that reaches the decoder has nothing to resolve it: dropped with a warning.
// @see https://platform.openai.com/docs/api-reference/responses/create

import type { Conversation, Part, ReasoningEffort, ResponseFormat, TextPart, ToolDef, Turn } from '../model.ts';
import { parseDataUrl } from '../data-url.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { translationError } from '../translation-error.ts';
import { deferredToolsWarning } from '../deferred-tools-warning.ts';
import { loadedResponsesTools, toolKey } from './deferred-tools.ts';
import { ToolFlattener } from './namespace-tools.ts';
import { decodeFunctionCallItem, decodeMessageContent, decodeReasoningItem } from './responses-items.ts';
import type { ResponsesContentPart, ResponsesInputItem, ResponsesNamespaceTool, ResponsesRequest, ResponsesTextFormat, ResponsesTool } from './types.ts';

const MAPPED = new Set([
  'model', 'instructions', 'input', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature',
  'top_p', 'stream', 'reasoning', 'text', 'prompt_cache_key', 'include', 'store',
]);

function inputParts(content: string | ResponsesContentPart[]): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: Part[] = [];
  for (const c of Array.isArray(content) ? content : []) {
    if ((c.type === 'input_text' || c.type === 'output_text') && c.text !== '') parts.push({ type: 'text', text: c.text });
    else if (c.type === 'input_image') {
      const inline = c.image_url !== undefined ? parseDataUrl(c.image_url) : undefined;
      const source = inline !== undefined ? { kind: 'base64' as const, ...inline }
        : c.image_url !== undefined ? { kind: 'url' as const, url: c.image_url } : { kind: 'file' as const, fileId: c.file_id ?? '' };
      parts.push({ type: 'image', source, ...(c.detail !== undefined ? { detail: c.detail } : {}) });
    } else if (c.type === 'input_file') {
      const inline = c.file_data !== undefined ? parseDataUrl(c.file_data) : undefined;
      const source = inline !== undefined ? { kind: 'base64' as const, ...inline }
        : c.file_url !== undefined ? { kind: 'url' as const, url: c.file_url } : { kind: 'file' as const, fileId: c.file_id ?? '' };
      parts.push({ type: 'document', source, ...(c.filename !== undefined ? { filename: c.filename } : {}) });
    }
  }
  return parts;
}

function decodeItems(items: ResponsesInputItem[], conv: Conversation, flat: ToolFlattener): void {
  const names = new Map<string, string>();
  let leading = true;
  const assistant = (): Turn => {
    const last = conv.turns.at(-1);
    if (last?.role === 'assistant') return last;
    const turn: Turn = { role: 'assistant', parts: [] };
    conv.turns.push(turn);
    return turn;
  };
  items.forEach((item, i) => {
    if (!isPlainObject(item)) throw translationError(`input[${i}] must be an object.`, `input[${i}]`);
    if (item.type === 'function_call') {
      leading = false;
      const call = decodeFunctionCallItem(item);
      if (typeof item.namespace === 'string' && item.namespace !== '') call.name = flat.name(item.namespace, call.name);
      names.set(call.id, call.name);
      assistant().parts.push(call);
    } else if (item.type === 'reasoning') {
      leading = false;
      assistant().parts.push(decodeReasoningItem(item));
    } else if (item.type === 'function_call_output') {
      leading = false;
      const content = typeof item.output === 'string' ? [{ type: 'text' as const, text: item.output }] : inputParts(item.output).filter((p) => p.type === 'text' || p.type === 'image' || p.type === 'document');
      conv.turns.push({ role: 'tool', parts: [{ type: 'tool_result', callId: item.call_id, name: names.get(item.call_id), content, isError: false }] });
    } else if (item.type === undefined || item.type === 'message') {
      if (item.role === 'system' || item.role === 'developer') {
        const parts = inputParts(item.content).filter((p): p is TextPart => p.type === 'text');
        if (leading) conv.system.push(...parts);
        else conv.turns.push({ role: 'system', parts });
      } else if (item.role === 'assistant') {
        leading = false;
        assistant().parts.push(...decodeMessageContent(item.content as Parameters<typeof decodeMessageContent>[0]));
      } else {
        leading = false;
        conv.turns.push({ role: 'user', parts: inputParts(item.content) });
      }
    } else if ((item as { type: unknown }).type === 'item_reference') {
      // Sent for items of an earlier stored response (the AI SDK's default store: true); nothing here can resolve it.
      const id = String((item as { id?: unknown }).id);
      conv.warnings.push(`input[${i}] (item_reference ${id}) was dropped: no stored response was at hand to resolve it; send the items themselves (store: false).`);
    } else {
      conv.warnings.push(`input[${i}] of type ${String((item as { type: unknown }).type)} has no equivalent and was dropped.`);
    }
  });
}

function decodeFormat(format: ResponsesTextFormat | undefined): ResponseFormat | undefined {
  if (format?.type === 'json_object') return { type: 'json' };
  if (format?.type === 'json_schema') {
    const out: ResponseFormat = { type: 'json_schema', name: format.name, schema: format.schema };
    if (typeof format.strict === 'boolean') out.strict = format.strict;
    return out;
  }
  return format?.type === 'text' ? { type: 'text' } : undefined;
}

function functionDef(t: ResponsesTool, name: string): ToolDef {
  const def: ToolDef = { name, parameters: isPlainObject(t.parameters) ? t.parameters : { type: 'object', properties: {} } };
  if (typeof t.description === 'string') def.description = t.description;
  if (typeof t.strict === 'boolean') def.strict = t.strict;
  return def;
}

/** What decodeTools needs besides the tools: flat names, and which deferred tools are loaded (or left out). */
interface ToolContext {
  flat: ToolFlattener;
  loaded: Set<string>;
  deferred: string[];
}

function leftOut(t: ResponsesTool, ctx: ToolContext, namespace?: string): boolean {
  if (t.defer_loading !== true || ctx.loaded.has(toolKey(String(t.name), namespace))) return false;
  ctx.deferred.push(namespace === undefined ? String(t.name) : `${namespace}.${String(t.name)}`);
  return true;
}

/** A namespace's functions as flat tools; the namespace stays whole in extras for a responses upstream. */
function decodeNamespace(ns: ResponsesNamespaceTool, conv: Conversation, ctx: ToolContext): void {
  for (const t of Array.isArray(ns.tools) ? ns.tools : []) {
    if (t.type === 'function' && typeof t.name === 'string') {
      if (!leftOut(t, ctx, ns.name)) conv.tools.push(functionDef(t, ctx.flat.name(ns.name, t.name)));
    }
    else conv.warnings.push(`The ${String(t.type)} tool ${String(t.name)} of namespace ${ns.name} was dropped: only a responses-style upstream can run it.`);
  }
}

function isNamespace(t: ResponsesTool): t is ResponsesTool & ResponsesNamespaceTool {
  return t.type === 'namespace' && typeof t.name === 'string';
}

function decodeTools(tools: ResponsesTool[], conv: Conversation, extras: Record<string, unknown>, ctx: ToolContext): void {
  const builtin: ResponsesTool[] = [];
  for (const t of tools) {
    if (isNamespace(t)) {
      builtin.push(t);
      decodeNamespace(t, conv, ctx);
      continue;
    }
    if (t.type === 'function' && leftOut(t, ctx)) {
      builtin.push(t);
      continue;
    }
    if (t.type !== 'function') {
      builtin.push(t);
      conv.warnings.push(`The built-in tool ${t.type} was dropped: only a responses-style upstream can run it.`);
      continue;
    }
    conv.tools.push(functionDef(t, String(t.name)));
  }
  if (builtin.length > 0) extras.builtinTools = builtin;
  if (ctx.deferred.length > 0) conv.warnings.push(deferredToolsWarning(ctx.deferred));
}

export function decodeResponsesRequest(body: unknown): Conversation {
  if (!isPlainObject(body)) throw translationError('The request body must be a JSON object.');
  const req = body as unknown as ResponsesRequest;
  if (typeof req.model !== 'string' || req.model === '') throw translationError('`model` is required.', 'model');
  if (typeof req.input !== 'string' && !Array.isArray(req.input)) throw translationError('`input` must be a string or an array of items.', 'input');
  const conv: Conversation = { model: req.model, system: [], turns: [], tools: [], sampling: {}, stream: req.stream === true, extras: {}, warnings: [] };
  if (typeof req.instructions === 'string' && req.instructions !== '') conv.system.push({ type: 'text', text: req.instructions });
  const tools = Array.isArray(req.tools) ? req.tools : [];
  const flat = new ToolFlattener(tools.filter((t) => t.type === 'function').map((t) => String(t.name)));
  // Flat names in the order the tools list them, whatever earlier calls come first in input.
  for (const t of tools) if (isNamespace(t)) for (const f of Array.isArray(t.tools) ? t.tools : []) if (f.type === 'function' && typeof f.name === 'string') flat.name(t.name, f.name);
  if (typeof req.input === 'string') conv.turns.push({ role: 'user', parts: [{ type: 'text', text: req.input }] });
  else decodeItems(req.input, conv, flat);
  const extras: Record<string, unknown> = {};
  const anyDeferred = tools.some((t) => t.defer_loading === true || (isNamespace(t) && Array.isArray(t.tools) && t.tools.some((f) => f.defer_loading === true)));
  const loaded = anyDeferred && Array.isArray(req.input) ? loadedResponsesTools(req.input) : new Set<string>();
  decodeTools(tools, conv, extras, { flat, loaded, deferred: [] });
  if (flat.used) conv.toolRenames = flat.renames;
  const tc = req.tool_choice;
  if (tc === 'auto' || tc === 'none' || tc === 'required') conv.toolChoice = tc;
  else if (isPlainObject(tc) && tc.type === 'function') conv.toolChoice = { name: tc.name };
  else if (isPlainObject(tc) && tc.type === 'allowed_tools') conv.toolChoice = tc.mode;
  else if (isPlainObject(tc)) {
    const forced = String((tc as { type?: unknown }).type);
    throw translationError(`tool_choice forces the built-in tool ${forced}, which only a responses-style upstream can run.`, 'tool_choice');
  }
  if (typeof req.parallel_tool_calls === 'boolean') conv.parallelToolCalls = req.parallel_tool_calls;
  if (typeof req.max_output_tokens === 'number') conv.sampling.maxTokens = req.max_output_tokens;
  if (typeof req.temperature === 'number') conv.sampling.temperature = req.temperature;
  if (typeof req.top_p === 'number') conv.sampling.topP = req.top_p;
  const r = req.reasoning;
  if (isPlainObject(r) && (typeof r.effort === 'string' || typeof r.summary === 'string')) {
    conv.reasoning = { ...(typeof r.effort === 'string' ? { effort: r.effort as ReasoningEffort } : {}), ...(typeof r.summary === 'string' ? { summary: r.summary } : {}) };
  }
  const format = decodeFormat(req.text?.format);
  if (format !== undefined) conv.responseFormat = format;
  if (typeof req.text?.verbosity === 'string') extras.verbosity = req.text.verbosity;
  if (typeof req.prompt_cache_key === 'string' && req.prompt_cache_key !== '') conv.sessionKey = req.prompt_cache_key;
  for (const [k, v] of Object.entries(req)) if (!MAPPED.has(k)) extras[k] = v;
  if (req.previous_response_id !== undefined) conv.warnings.push('previous_response_id was ignored: the gateway sends whole transcripts, so only the items of this request are seen.');
  if (Object.keys(extras).length > 0) conv.extras.responses = extras;
  return conv;
}
