/**
 * Conversation → messages request (anthropic upstreams). The traps of reference §E handled here:
 * - `max_tokens` is required: the conversation's limit, else `defaultMaxTokens(model)`.
 * - Tool results go into the user turn, ahead of its other content; `tool` and mid-conversation `system` turns
 *   become user content; same-role runs are merged (§E4).
 * - Empty and whitespace-only text is dropped, and turns left empty with it (§E2).
 * - Thinking is sent back only with a signature this family produced; thinking is turned off when the last
 *   assistant turn before pending tool results does not start with such a block, when a tool is forced, or when
 *   the output limit leaves no room for a budget (§E6). Thinking forbids `top_k` and a temperature other than 1.
 * - Temperature is clamped to 0–1; foreign tool ids are sanitised (the same way for calls and results).
 * - `n > 1` (candidates) is refused with a TranslationError (400): the messages style has no candidates.
 */
import type { Conversation, Part, TextPart, Turn } from '../model.ts';
import { translationError } from '../translation-error.ts';
import { defaultMaxTokens, supportsThinking, THINKING_BUDGET } from './default-max-tokens.ts';
import { encodeBlock, encodeCache } from './encode-messages-blocks.ts';
import type { MessagesContentBlock, MessagesMessage, MessagesRequest, MessagesTextBlock, MessagesThinking, MessagesTool } from './types.ts';
import { applySamplingRules, MESSAGES_SAMPLING } from '../sampling-rules.ts';

export function encodeMessagesRequest(conv: Conversation): MessagesRequest {
  if (conv.candidates !== undefined && conv.candidates > 1) {
    throw translationError('More than one candidate (n > 1) is not supported by the messages style.', 'n');
  }
  const { server_tools: serverTools, deferred_tools: deferredTools, ...extras } = conv.extras.messages ?? {};
  const messages = encodeTurns(conv.turns, conv.warnings);
  const req: MessagesRequest = { ...extras, model: conv.model, messages };
  const system = conv.system.filter((p) => p.text.trim() !== '').map(textBlock);
  if (system.length === 1 && system[0].cache_control === undefined) req.system = system[0].text;
  else if (system.length > 0) req.system = system;

  let maxTokens = conv.sampling.maxTokens ?? defaultMaxTokens(conv.model);
  const thinking = encodeThinking(conv, messages, maxTokens);
  if (thinking?.type === 'enabled' && conv.sampling.maxTokens === undefined && thinking.budget_tokens >= maxTokens) {
    maxTokens = thinking.budget_tokens + defaultMaxTokens(conv.model);
  }
  req.max_tokens = maxTokens;
  const thinkingOn = thinking !== undefined && thinking.type !== 'disabled';
  if (thinking !== undefined) req.thinking = thinking;
  const s = applySamplingRules(conv.sampling, MESSAGES_SAMPLING, 'messages', thinkingOn, conv.warnings, 'thinking');
  if (s.temperature !== undefined) req.temperature = s.temperature;
  if (s.topP !== undefined) req.top_p = s.topP;
  if (s.topK !== undefined) req.top_k = s.topK;
  if (s.stop !== undefined && s.stop.length > 0) req.stop_sequences = s.stop;
  if (conv.stream) req.stream = true;

  const tools: MessagesTool[] = conv.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.parameters.type === 'object' ? t.parameters : { type: 'object', properties: {}, ...t.parameters },
    ...(t.strict !== undefined ? { strict: t.strict } : {}),
    ...encodeCache(t.cache),
  }));
  if (Array.isArray(deferredTools)) tools.push(...(deferredTools as MessagesTool[]));
  if (Array.isArray(serverTools)) tools.push(...(serverTools as MessagesTool[]));
  if (tools.length > 0) {
    req.tools = tools;
    const c = conv.toolChoice;
    const noParallel = conv.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
    if (c === 'none') req.tool_choice = { type: 'none' };
    else if (c === 'required') req.tool_choice = { type: 'any', ...noParallel };
    else if (typeof c === 'object') req.tool_choice = { type: 'tool', name: c.name, ...noParallel };
    else if (c === 'auto' || conv.parallelToolCalls === false) req.tool_choice = { type: 'auto', ...noParallel };
  }

  const f = conv.responseFormat;
  const outputConfig: Record<string, unknown> = { ...(extras.output_config as Record<string, unknown> | undefined) };
  if (f?.type === 'json_schema') outputConfig.format = { type: 'json_schema', schema: f.schema };
  else if (f?.type === 'json') conv.warnings.push('JSON mode without a schema is not supported by the messages style and was dropped.');
  const effort = conv.reasoning?.effort;
  if (thinking?.type === 'adaptive' && effort !== undefined && effort !== 'none' && outputConfig.effort === undefined) {
    outputConfig.effort = effort;
  }
  if (Object.keys(outputConfig).length > 0) req.output_config = outputConfig;
  else delete req.output_config;
  if (req.metadata === undefined && conv.sessionKey !== undefined) req.metadata = { user_id: conv.sessionKey };
  return req;
}

function textBlock(p: TextPart): MessagesTextBlock {
  return { type: 'text', text: p.text, ...encodeCache(p.cache) };
}

/** Decides the `thinking` field (see the module header for when thinking is turned off). */
function encodeThinking(conv: Conversation, messages: MessagesMessage[], maxTokens: number): MessagesThinking | undefined {
  const r = conv.reasoning;
  if (r === undefined) return undefined;
  if (r.effort === 'none' || r.budgetTokens === 0) return { type: 'disabled' };
  const off = (why: string): undefined => {
    conv.warnings.push(`Thinking was turned off: ${why}.`);
    return undefined;
  };
  if (!supportsThinking(conv.model)) return off(`${conv.model} does not support thinking`);
  const c = conv.toolChoice;
  if (c === 'required' || typeof c === 'object') return off('the messages style does not allow it when a tool is forced');
  if (!lastToolTurnStartsWithThinking(messages)) return off('the assistant turn before the tool results has no signed thinking block');
  if (r.adaptive === true) return { type: 'adaptive' };
  let budget = r.budgetTokens !== undefined && r.budgetTokens > 0 ? r.budgetTokens : THINKING_BUDGET[r.effort ?? 'medium'];
  budget = Math.max(budget, 1024);
  if (conv.sampling.maxTokens !== undefined && budget >= maxTokens) {
    budget = Math.floor(maxTokens / 2);
    if (budget < 1024) return off(`the output limit of ${maxTokens} tokens leaves no room for a thinking budget`);
  }
  return { type: 'enabled', budget_tokens: budget };
}

/** With thinking on, the assistant turn answered by the final user turn's tool results must start with thinking. */
function lastToolTurnStartsWithThinking(messages: MessagesMessage[]): boolean {
  const last = messages.at(-1);
  if (last === undefined || last.role !== 'user' || typeof last.content === 'string') return true;
  if (!last.content.some((b) => b.type === 'tool_result')) return true;
  const prev = messages.at(-2);
  if (prev === undefined || prev.role !== 'assistant' || typeof prev.content === 'string') return true;
  const first = prev.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
}

function encodeTurns(turns: Turn[], warnings: string[]): MessagesMessage[] {
  const out: { role: 'user' | 'assistant'; content: MessagesContentBlock[] }[] = [];
  for (const turn of turns) {
    const role = turn.role === 'assistant' ? 'assistant' : 'user';
    const blocks = turn.parts.map((p: Part) => encodeBlock(p, role, warnings)).filter((b) => b !== undefined);
    if (blocks.length === 0) continue;
    const prev = out.at(-1);
    if (prev !== undefined && prev.role === role) prev.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // In a user turn every tool_result comes first (§B, §E4); the sort is stable.
  for (const m of out) {
    if (m.role === 'user') m.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return out;
}
