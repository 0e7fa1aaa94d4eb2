// Conversation → responses-style request (reference §F1).
// - Leading instructions → `instructions`; mid-conversation system turns → `developer` message items.
// - User turns → `message` items with input_text / input_image / input_file parts; tool results (in user or tool
//   turns) → `function_call_output` items, in place; assistant text → `message` items with output_text;
//   calls → `function_call` items (`call_id` = the call id); Responses-family thinking with its encrypted content →
//   `reasoning` items. Thinking of other families cannot be replayed and is dropped.
// - `store:false` always: the whole transcript is sent each turn and reasoning travels encrypted, so
//   `include:["reasoning.encrypted_content"]` is always asked for.
// - Function tools are sent with `strict:false` unless the tool says otherwise (strict is the style's default and
//   would reject schemas written for other styles).
// The ChatGPT-plan backend has extra rules: apply `toCodexRequest` to the result for it.
// @see https://platform.openai.com/docs/api-reference/responses/create

import type { Conversation, DocumentPart, ImagePart, Part, ToolChoice } from '../model.ts';
import { toDataUrl } from '../data-url.ts';
import { toolArgumentsText } from '../tool-arguments.ts';
import { translationError } from '../translation-error.ts';
import { clientToolName, encodeReasoningItem } from './responses-items.ts';
import { applySamplingRules, RESPONSES_SAMPLING } from '../sampling-rules.ts';
import type {
  ResponsesContentPart, ResponsesEffort, ResponsesInputItem, ResponsesObject, ResponsesRequest, ResponsesTextFormat, ResponsesTool,
  ResponsesToolChoice,
} from './types.ts';

function imagePart(p: ImagePart): ResponsesContentPart | undefined {
  const s = p.source;
  const detail = p.detail !== undefined ? { detail: p.detail } : {};
  if (s.kind === 'url') return { type: 'input_image', image_url: s.url, ...detail };
  if (s.kind === 'base64') return { type: 'input_image', image_url: toDataUrl(s.mediaType, s.data), ...detail };
  if (s.kind === 'file') return { type: 'input_image', file_id: s.fileId, ...detail };
  return undefined;
}

function documentPart(p: DocumentPart): ResponsesContentPart {
  const s = p.source;
  const name = p.filename ?? p.title;
  const filename = name !== undefined ? { filename: name } : {};
  if (s.kind === 'text') return { type: 'input_text', text: s.text };
  if (s.kind === 'url') return { type: 'input_file', file_url: s.url, ...filename };
  if (s.kind === 'file') return { type: 'input_file', file_id: s.fileId, ...filename };
  return { type: 'input_file', file_data: toDataUrl(s.mediaType, s.data), filename: name ?? 'document' };
}

/** User-side content: text, images and documents (audio has no input part in this style and is left out). */
function inputContent(part: Part): ResponsesContentPart[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ type: 'input_text', text: part.text }];
  if (part.type === 'image') return [imagePart(part)].filter((c) => c !== undefined);
  if (part.type === 'document') return [documentPart(part)];
  return [];
}

function encodeTurns(conv: Conversation): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const turn of conv.turns) {
    let content: ResponsesContentPart[] = [];
    const role = turn.role === 'assistant' ? 'assistant' : turn.role === 'system' ? 'developer' : 'user';
    const flush = (): void => {
      if (content.length > 0) items.push({ type: 'message', role, content });
      content = [];
    };
    for (const part of turn.parts) {
      if (part.type === 'tool_result') {
        flush();
        const media = part.content.flatMap(inputContent);
        const onlyText = media.every((c) => c.type === 'input_text');
        const output = onlyText ? part.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n') : media;
        items.push({ type: 'function_call_output', call_id: part.callId, output });
      } else if (part.type === 'tool_call') {
        flush();
        items.push({ type: 'function_call', call_id: part.id, ...clientToolName(part.name, conv.toolRenames), arguments: toolArgumentsText(part.arguments, part.argumentsText) });
      } else if (part.type === 'thinking') {
        if (part.origin !== 'responses' || part.signature === undefined) continue;
        flush();
        const { id, ...item } = encodeReasoningItem(part, part.itemId ?? '');
        items.push(part.itemId !== undefined ? { ...item, id } : item);
      } else if (role === 'assistant') {
        if (part.type === 'text' && part.text !== '') content.push({ type: 'output_text', text: part.text });
        if (part.type === 'refusal' && part.text !== '') content.push({ type: 'refusal', refusal: part.text });
      } else content.push(...inputContent(part));
    }
    flush();
  }
  return items;
}

export function encodeToolChoice(c: ToolChoice): ResponsesToolChoice {
  return typeof c === 'string' ? c : { type: 'function', name: c.name };
}

function encodeFormat(conv: Conversation): ResponsesTextFormat | undefined {
  const f = conv.responseFormat;
  if (f === undefined) return undefined;
  if (f.type === 'text') return { type: 'text' };
  if (f.type === 'json') return { type: 'json_object' };
  const out: ResponsesTextFormat = { type: 'json_schema', name: f.name ?? 'response', schema: f.schema as ResponsesObject };
  if (f.strict !== undefined) out.strict = f.strict;
  return out;
}

/** Function tools, then the kept built-ins; functions flattened out of a namespace go back in it (a kept built-in). */
export function encodeResponsesTools(conv: Conversation): ResponsesTool[] {
  const inNamespace = (name: string): boolean => clientToolName(name, conv.toolRenames).namespace !== undefined;
  const tools: ResponsesTool[] = conv.tools.filter((t) => !inNamespace(t.name)).map((t) => ({
    type: 'function' as const, name: t.name, ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: t.parameters as ResponsesObject, strict: t.strict ?? false,
  }));
  const builtin = conv.extras.responses?.builtinTools;
  if (Array.isArray(builtin)) tools.push(...(builtin as ResponsesTool[]));
  return tools;
}

export function encodeResponsesRequest(conv: Conversation): ResponsesRequest {
  if (conv.candidates !== undefined && conv.candidates > 1) {
    throw translationError('This upstream answers with one candidate only; ask for one (n or candidateCount = 1).', 'n');
  }
  const req: ResponsesRequest = { model: conv.model, input: encodeTurns(conv), stream: conv.stream, store: false };
  const instructions = conv.system.map((p) => p.text).filter((t) => t !== '').join('\n\n');
  if (instructions !== '') req.instructions = instructions;
  const tools = encodeResponsesTools(conv);
  const extras = conv.extras.responses ?? {};
  if (tools.length > 0) req.tools = tools;
  if (conv.toolChoice !== undefined && tools.length > 0) req.tool_choice = encodeToolChoice(conv.toolChoice);
  if (conv.parallelToolCalls !== undefined) req.parallel_tool_calls = conv.parallelToolCalls;
  const r = conv.reasoning;
  const s = applySamplingRules(conv.sampling, RESPONSES_SAMPLING, 'responses', r !== undefined && r.effort !== 'none', conv.warnings);
  if (s.maxTokens !== undefined) req.max_output_tokens = s.maxTokens;
  if (s.temperature !== undefined) req.temperature = s.temperature;
  if (s.topP !== undefined) req.top_p = s.topP;
  if (r !== undefined) {
    // The style knows efforts only; a bare budget or adaptive thinking leaves the effort to the model.
    const effort = r.effort === 'max' ? 'xhigh' : r.effort;
    req.reasoning = { ...(effort !== undefined ? { effort: effort as ResponsesEffort } : {}), ...(effort !== 'none' ? { summary: r.summary ?? 'auto' } : {}) };
  }
  req.include = ['reasoning.encrypted_content'];
  const format = encodeFormat(conv);
  if (format !== undefined || typeof extras.verbosity === 'string') {
    req.text = { ...(format !== undefined ? { format } : {}), ...(typeof extras.verbosity === 'string' ? { verbosity: extras.verbosity as 'low' } : {}) };
  }
  if (conv.sessionKey !== undefined) req.prompt_cache_key = conv.sessionKey;
  if (typeof extras.service_tier === 'string') req.service_tier = extras.service_tier;
  if (typeof extras.metadata === 'object' && extras.metadata !== null) req.metadata = extras.metadata as Record<string, string>;
  return req;
}
