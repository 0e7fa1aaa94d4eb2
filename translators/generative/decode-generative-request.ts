// Generative-language request (`:generateContent` / `:streamGenerateContent` / `:countTokens` body) → Conversation.
// The model comes from the path (`models/{model}:…`), the stream flag from which endpoint was called.
// Calls without ids get position-based ids (`gcall_t<turn>_<k>`), and results without ids are paired with the
// calls of the previous model turn by name and order (reference §D1, §E8).
// @see https://ai.google.dev/api/generate-content#request-body

import type { Conversation, Part, Reasoning, ReasoningEffort, ResponseFormat, Sampling, TextPart, ToolChoice, ToolDef, Turn } from '../model.ts';
import { translationError } from '../translation-error.ts';
import { generativeCallId } from './generative-call-id.ts';
import { decodeGenerativeParts } from './generative-parts.ts';
import { decodeGenerativeDeclarationSchema, openApiToJsonSchema } from './generative-schema.ts';
import { normalizeGenerativeKeys } from './normalize-generative-keys.ts';
import type { GenerateContentRequest, GenerativeContent, GenerativeGenerationConfig, GenerativeJson, GenerativeTool, GenerativeToolConfig } from './types.ts';

export interface GenerativeDecodeOptions {
  /** True for `:streamGenerateContent`. */
  stream?: boolean;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Strips the `models/` prefix the API uses in resource names. */
export function generativeModelId(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

function decodeTurns(contents: GenerativeContent[], warnings: string[]): Turn[] {
  const turns: Turn[] = [];
  let pending: { id: string; name: string }[] = [];
  contents.forEach((content, t) => {
    const role = content.role === 'model' ? 'assistant' : 'user';
    let orphan = 0;
    const parts: Part[] = decodeGenerativeParts(Array.isArray(content.parts) ? content.parts : [], {
      callId: (_call, k) => generativeCallId(`t${t}`, k),
      resultId: (fr) => {
        const i = pending.findIndex((c) => c.name === fr.name);
        if (i < 0) return generativeCallId(`t${t}r`, orphan++);
        return pending.splice(i, 1)[0].id;
      },
      warn: (m) => warnings.push(`contents[${t}]: ${m}`),
    });
    if (role === 'assistant') {
      pending = parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name }] : []));
    } else {
      const answered = new Set(parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : [])));
      pending = pending.filter((c) => !answered.has(c.id));
    }
    if (parts.length > 0) turns.push({ role, parts });
  });
  return turns;
}

function decodeTools(tools: GenerativeTool[], extras: Record<string, unknown>, warnings: string[]): ToolDef[] {
  const defs: ToolDef[] = [];
  const builtin: GenerativeTool[] = [];
  for (const tool of tools) {
    const { functionDeclarations, ...rest } = tool;
    for (const decl of functionDeclarations ?? []) {
      const def: ToolDef = { name: decl.name, parameters: decodeGenerativeDeclarationSchema(decl) };
      if (decl.description !== undefined) def.description = decl.description;
      defs.push(def);
    }
    if (Object.keys(rest).length > 0) {
      builtin.push(rest);
      warnings.push(`Built-in tools (${Object.keys(rest).join(', ')}) exist only in the generative-language style.`);
    }
  }
  if (builtin.length > 0) extras.builtinTools = builtin;
  return defs;
}

function decodeToolChoice(config: GenerativeToolConfig | undefined, warnings: string[]): ToolChoice | undefined {
  const fc = config?.functionCallingConfig;
  switch (fc?.mode) {
    case 'NONE':
      return 'none';
    case 'ANY': {
      const names = fc.allowedFunctionNames ?? [];
      if (names.length === 1) return { name: names[0] };
      if (names.length > 1) warnings.push('toolConfig.allowedFunctionNames with several names became "any tool".');
      return 'required';
    }
    case 'AUTO':
    case 'VALIDATED':
      return 'auto';
    default:
      return undefined;
  }
}

function decodeSampling(g: GenerativeGenerationConfig): Sampling {
  const s: Sampling = {};
  if (typeof g.maxOutputTokens === 'number') s.maxTokens = g.maxOutputTokens;
  if (typeof g.temperature === 'number') s.temperature = g.temperature;
  if (typeof g.topP === 'number') s.topP = g.topP;
  if (typeof g.topK === 'number') s.topK = g.topK;
  if (Array.isArray(g.stopSequences) && g.stopSequences.length > 0) s.stop = g.stopSequences;
  if (typeof g.seed === 'number') s.seed = g.seed;
  if (typeof g.presencePenalty === 'number') s.presencePenalty = g.presencePenalty;
  if (typeof g.frequencyPenalty === 'number') s.frequencyPenalty = g.frequencyPenalty;
  return s;
}

function decodeFormat(g: GenerativeGenerationConfig, warnings: string[]): ResponseFormat | undefined {
  const mime = g.responseMimeType;
  if (mime === undefined || mime === 'text/plain') return undefined;
  if (mime !== 'application/json') {
    warnings.push(`responseMimeType ${mime} has no equivalent and was dropped.`);
    return undefined;
  }
  const schema: GenerativeJson | undefined = g.responseJsonSchema ?? g.responseSchema;
  if (!isObject(schema)) return { type: 'json' };
  return { type: 'json_schema', schema: g.responseJsonSchema !== undefined ? schema : openApiToJsonSchema(schema) };
}

function decodeReasoning(g: GenerativeGenerationConfig): Reasoning | undefined {
  const t = g.thinkingConfig;
  if (t === undefined) return undefined;
  const r: Reasoning = {};
  if (t.thinkingBudget === 0) r.effort = 'none';
  else if (typeof t.thinkingBudget === 'number') r.budgetTokens = t.thinkingBudget;
  if (t.thinkingLevel !== undefined && t.thinkingLevel !== 'THINKING_LEVEL_UNSPECIFIED') {
    r.effort = t.thinkingLevel.toLowerCase() as ReasoningEffort;
  }
  if (t.includeThoughts === true) r.summary = 'auto';
  return Object.keys(r).length > 0 ? r : undefined;
}

/**
 * `model` is the path's `models/{model}`; when omitted, a `model` field of the body is used (the form of the
 * `:countTokens` `generateContentRequest`, and how the style registry passes the path's model).
 */
export function decodeGenerativeRequest(body: unknown, model?: string, options: GenerativeDecodeOptions = {}): Conversation {
  const req = normalizeGenerativeKeys(body);
  if (!isObject(req)) throw translationError('The request body must be a JSON object.');
  if (!Array.isArray(req.contents)) throw translationError('contents must be an array of Content objects.', 'contents');
  const r = req as unknown as GenerateContentRequest;
  const warnings: string[] = [];
  const extras: Record<string, unknown> = {};
  const system: TextPart[] = [];
  for (const p of r.systemInstruction?.parts ?? []) {
    if (typeof p.text === 'string' && p.text !== '') system.push({ type: 'text', text: p.text });
    else if (typeof p.text !== 'string') warnings.push('systemInstruction: only text parts are kept.');
  }
  const g = isObject(r.generationConfig) ? r.generationConfig : {};
  const conv: Conversation = {
    model: generativeModelId(model ?? (typeof r.model === 'string' ? r.model : '')),
    system,
    turns: decodeTurns(r.contents.filter(isObject), warnings),
    tools: decodeTools(Array.isArray(r.tools) ? r.tools.filter(isObject) : [], extras, warnings),
    sampling: decodeSampling(g),
    stream: options.stream === true,
    extras: {},
    warnings,
  };
  const choice = decodeToolChoice(r.toolConfig, warnings);
  if (choice !== undefined) conv.toolChoice = choice;
  const format = decodeFormat(g, warnings);
  if (format !== undefined) conv.responseFormat = format;
  const reasoning = decodeReasoning(g);
  if (reasoning !== undefined) conv.reasoning = reasoning;
  if (typeof g.candidateCount === 'number') conv.candidates = g.candidateCount;
  if (Array.isArray(r.safetySettings)) extras.safetySettings = r.safetySettings;
  if (typeof r.cachedContent === 'string') extras.cachedContent = r.cachedContent;
  if (Object.keys(extras).length > 0) conv.extras.generative = extras;
  return conv;
}

/** `:countTokens` body: bare `contents` or a whole `generateContentRequest`. */
export function decodeGenerativeCountTokensRequest(body: unknown, model?: string): Conversation {
  const req = normalizeGenerativeKeys(body);
  if (isObject(req) && isObject(req.generateContentRequest)) return decodeGenerativeRequest(req.generateContentRequest, model);
  return decodeGenerativeRequest(req, model);
}
