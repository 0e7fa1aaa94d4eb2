// Conversation → generative-language request body (the model goes in the path, not the body).
//
// - Leading instructions become `systemInstruction`; mid-conversation system turns become user text.
// - Roles: assistant → `model`; user, tool and system turns → `user`. Adjacent turns of one role are merged, so all
//   results of a model turn travel in one user content, ordered like the calls (reference §E8).
// - Tool results need the function name: taken from the result, else from the call with the same id.
// - Thinking and signatures from another family are dropped; Gemini's own are replayed. A model turn whose first
//   call has no Gemini signature gets the documented placeholder, which Gemini 3 requires (reference §E6).
// - Call ids: Gemini 3 returns an id with every call and wants it echoed in `functionResponse.id`, while Gemini 2.x
//   rejects the field ("Unknown name \"id\" at …function_call", JetBrains/koog#735). Ids are sent to Gemini 3 and
//   later models only (as NousResearch/hermes-agent#80683 does); older or unversioned model names pair results by
//   name and order. Reports differ on whether every Gemini 3 endpoint accepts the field: this is the one switch.
// @see https://ai.google.dev/api/generate-content#request-body
// @see https://ai.google.dev/gemini-api/docs/thought-signatures

import type { Conversation, Part, Reasoning, ReasoningEffort } from '../model.ts';
import { attachGenerativeSignatures, encodeGenerativeCall, encodeGenerativeMedia, encodeGenerativeResult, SKIP_THOUGHT_SIGNATURE } from './generative-parts.ts';
import { encodeGenerativeDeclaration } from './generative-schema.ts';
import type {
  GenerateContentRequest, GenerativeContent, GenerativeGenerationConfig, GenerativeJson, GenerativePart, GenerativeRole,
  GenerativeThinkingConfig, GenerativeTool, GenerativeToolConfig,
} from './types.ts';


/** Effort → thinking budget (CLIProxyAPI's table, capped at 24576, the largest budget every 2.5 model accepts). */
const EFFORT_BUDGET = {
  none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 24576, max: 24576,
} as const satisfies Record<ReasoningEffort, number>;

/** Whether the model takes `id` on functionCall/functionResponse parts: Gemini 3 and later. */
export function generativeAcceptsCallIds(model: string): boolean {
  const m = /gemini-(\d+)/i.exec(model);
  return m !== null && Number(m[1]) >= 3;
}

function encodePart(part: Part, names: Map<string, string>, role: GenerativeRole, withIds: boolean): GenerativePart[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'refusal':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'image':
      return [encodeGenerativeMedia(part.source, 'image/jpeg')];
    case 'audio':
      return [encodeGenerativeMedia(part.source, 'audio/wav')];
    case 'document':
      return [encodeGenerativeMedia(part.source, 'application/pdf')];
    case 'tool_call':
      return [encodeGenerativeCall(part, withIds)];
    case 'tool_result':
      return encodeGenerativeResult(part, part.name ?? names.get(part.callId) ?? part.callId, withIds);
    case 'thinking': {
      if (part.origin !== 'generative' || role !== 'model') return [];
      if (part.text === '' && part.signature === undefined) return [];
      const p: GenerativePart = part.text === '' ? { text: '' } : { text: part.text, thought: true };
      if (part.signature !== undefined) p.thoughtSignature = part.signature;
      return [p];
    }
    case 'redacted_thinking':
      return [];
  }
}

/** Results first, in the order of the calls they answer; then everything else. */
function orderResults(parts: GenerativePart[], callOrder: string[]): GenerativePart[] {
  const rank = (p: GenerativePart): number => {
    const fr = p.functionResponse;
    if (fr === undefined) return Number.MAX_SAFE_INTEGER;
    const i = callOrder.findIndex((n) => n === (fr.id ?? fr.name));
    return i < 0 ? callOrder.length : i;
  };
  return parts.map((p, i) => ({ p, i, r: rank(p) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.p);
}

function encodeContents(conv: Conversation): GenerativeContent[] {
  const names = new Map<string, string>();
  for (const turn of conv.turns) for (const p of turn.parts) if (p.type === 'tool_call') names.set(p.id, p.name);
  const contents: GenerativeContent[] = [];
  const withIds = generativeAcceptsCallIds(conv.model);
  let callOrder: string[] = [];
  for (const turn of conv.turns) {
    const role: GenerativeRole = turn.role === 'assistant' ? 'model' : 'user';
    const parts = turn.parts.flatMap((p) => (turn.role === 'system' && p.type === 'text' ? [{ text: p.text }] : encodePart(p, names, role, withIds)));
    if (parts.length === 0) continue;
    const last = contents.at(-1);
    if (last !== undefined && last.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
  }
  for (const c of contents) {
    if (c.role === 'model') {
      callOrder = (c.parts ?? []).flatMap((p) => (p.functionCall ? [p.functionCall.id ?? p.functionCall.name] : []));
      c.parts = attachGenerativeSignatures(c.parts ?? []);
      const first = c.parts.find((p) => p.functionCall !== undefined);
      if (first !== undefined && first.thoughtSignature === undefined) first.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
    } else {
      c.parts = orderResults(c.parts ?? [], callOrder);
      callOrder = [];
    }
  }
  return contents;
}

function encodeThinking(r: Reasoning): GenerativeThinkingConfig {
  if (r.effort === 'none') return { thinkingBudget: 0 };
  const t: GenerativeThinkingConfig = { includeThoughts: true };
  if (r.budgetTokens !== undefined) t.thinkingBudget = r.budgetTokens;
  else if (r.adaptive === true) t.thinkingBudget = -1;
  else if (r.effort !== undefined) t.thinkingBudget = EFFORT_BUDGET[r.effort];
  return t;
}

function encodeGenerationConfig(conv: Conversation): GenerativeGenerationConfig | undefined {
  const s = conv.sampling;
  const g: GenerativeGenerationConfig = {};
  if (s.maxTokens !== undefined) g.maxOutputTokens = s.maxTokens;
  if (s.temperature !== undefined) g.temperature = s.temperature;
  if (s.topP !== undefined) g.topP = s.topP;
  if (s.topK !== undefined) g.topK = s.topK;
  if (s.stop !== undefined && s.stop.length > 0) g.stopSequences = s.stop;
  if (s.seed !== undefined) g.seed = s.seed;
  if (s.presencePenalty !== undefined) g.presencePenalty = s.presencePenalty;
  if (s.frequencyPenalty !== undefined) g.frequencyPenalty = s.frequencyPenalty;
  if (conv.candidates !== undefined && conv.candidates !== 1) g.candidateCount = conv.candidates;
  if (conv.parallelToolCalls === false) conv.warnings.push('The generative-language style cannot forbid parallel tool calls; parallelToolCalls:false was dropped.');
  const f = conv.responseFormat;
  if (f?.type === 'json') g.responseMimeType = 'application/json';
  if (f?.type === 'json_schema') {
    g.responseMimeType = 'application/json';
    g.responseJsonSchema = f.schema as GenerativeJson;
  }
  if (conv.reasoning !== undefined) g.thinkingConfig = encodeThinking(conv.reasoning);
  return Object.keys(g).length > 0 ? g : undefined;
}

function encodeToolConfig(conv: Conversation): GenerativeToolConfig | undefined {
  const c = conv.toolChoice;
  if (c === undefined || conv.tools.length === 0) return undefined;
  if (c === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (c === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (c === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [c.name] } };
}

export function encodeGenerativeRequest(conv: Conversation): GenerateContentRequest {
  const req: GenerateContentRequest = { contents: encodeContents(conv) };
  const system = conv.system.filter((p) => p.text !== '');
  if (system.length > 0) req.systemInstruction = { parts: system.map((p) => ({ text: p.text })) };
  const extras = conv.extras.generative ?? {};
  const tools: GenerativeTool[] = [];
  if (conv.tools.length > 0) {
    tools.push({ functionDeclarations: conv.tools.map((t) => encodeGenerativeDeclaration(t.name, t.description, t.parameters)) });
  }
  if (Array.isArray(extras.builtinTools)) tools.push(...(extras.builtinTools as GenerativeTool[]));
  if (tools.length > 0) req.tools = tools;
  const toolConfig = encodeToolConfig(conv);
  if (toolConfig !== undefined) req.toolConfig = toolConfig;
  const g = encodeGenerationConfig(conv);
  if (g !== undefined) req.generationConfig = g;
  if (Array.isArray(extras.safetySettings)) req.safetySettings = extras.safetySettings as GenerateContentRequest['safetySettings'];
  if (typeof extras.cachedContent === 'string') req.cachedContent = extras.cachedContent;
  return req;
}
