/**
 * Which sampling parameters a target style accepts, and in which combinations: one table per target style, read
 * by its encoder (applySamplingRules). A rule adjusts or drops a parameter the target would refuse, with one warning
 * (X-Svc-Warning) that says what was done and why; the request goes on rather than failing upstream with 400.
 *
 * A rule applies `always` or only `with reasoning` (thinking on for messages, whose warnings say "thinking"; a
 * reasoning effort sent for the chat-completions and responses styles, whose reasoning models refuse these).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (feature compatibility)
 * @see https://platform.openai.com/docs/guides/reasoning (unsupported parameters)
 */
import type { Sampling } from './model.ts';

type Param = 'temperature' | 'topP' | 'topK' | 'stop' | 'seed' | 'presencePenalty' | 'frequencyPenalty';

export type SamplingAction =
  | { drop: true }
  /** Dropped unless it has this value. */
  | { only: number }
  /** Moved to the nearest value in the range. */
  | { range: [number, number] };

export interface SamplingRule {
  param: Param;
  /** The parameter's name on the wire of the client, for the warning. */
  name: string;
  when: 'always' | 'with reasoning';
  action: SamplingAction;
}

const rule = (param: Param, name: string, when: SamplingRule['when'], action: SamplingAction): SamplingRule => ({ param, name, when, action });

/** Claude (messages style): no seed or penalties; temperature up to 1; with thinking only temperature 1, top_p 0.95–1, no top_k. */
export const MESSAGES_SAMPLING: readonly SamplingRule[] = [
  rule('seed', 'seed', 'always', { drop: true }),
  rule('presencePenalty', 'presence_penalty', 'always', { drop: true }),
  rule('frequencyPenalty', 'frequency_penalty', 'always', { drop: true }),
  rule('temperature', 'temperature', 'with reasoning', { only: 1 }),
  rule('temperature', 'temperature', 'always', { range: [0, 1] }),
  rule('topP', 'top_p', 'with reasoning', { range: [0.95, 1] }),
  rule('topK', 'top_k', 'with reasoning', { drop: true }),
];

/** OpenAI chat completions: no top_k; reasoning models accept no temperature other than 1, no top_p and no penalties. */
export const CHAT_SAMPLING: readonly SamplingRule[] = [
  rule('topK', 'top_k', 'always', { drop: true }),
  rule('temperature', 'temperature', 'with reasoning', { only: 1 }),
  rule('topP', 'top_p', 'with reasoning', { drop: true }),
  rule('presencePenalty', 'presence_penalty', 'with reasoning', { drop: true }),
  rule('frequencyPenalty', 'frequency_penalty', 'with reasoning', { drop: true }),
];

/** OpenAI responses: no stop, top_k, seed or penalties at all; reasoning models as for chat completions. */
export const RESPONSES_SAMPLING: readonly SamplingRule[] = [
  rule('stop', 'stop', 'always', { drop: true }),
  rule('topK', 'top_k', 'always', { drop: true }),
  rule('seed', 'seed', 'always', { drop: true }),
  rule('presencePenalty', 'presence_penalty', 'always', { drop: true }),
  rule('frequencyPenalty', 'frequency_penalty', 'always', { drop: true }),
  rule('temperature', 'temperature', 'with reasoning', { only: 1 }),
  rule('topP', 'top_p', 'with reasoning', { drop: true }),
];

/** Gemini (generative language) takes every parameter of the model, thinking or not. */
export const GENERATIVE_SAMPLING: readonly SamplingRule[] = [];

/** `s` as the target accepts it; one warning per parameter changed or dropped. */
export function applySamplingRules(s: Sampling, rules: readonly SamplingRule[], style: string, reasoning: boolean, warnings: string[], reasoningName = 'reasoning'): Sampling {
  const out: Sampling = { ...s };
  const done = new Set<Param>();
  for (const r of rules) {
    const v = out[r.param];
    if (v === undefined || done.has(r.param) || (r.when === 'with reasoning' && !reasoning)) continue;
    const under = r.when === 'with reasoning' ? ` with ${reasoningName}` : '';
    const why = r.when === 'with reasoning' ? `the ${style} style does not allow it${under}` : `the ${style} style does not support it`;
    if ('drop' in r.action) {
      delete out[r.param];
      warnings.push(`${r.name} was dropped: ${why}.`);
      done.add(r.param);
    } else if ('only' in r.action) {
      if (v === r.action.only) continue;
      delete out[r.param];
      warnings.push(`${r.name} was dropped: the ${style} style allows only ${r.action.only}${under}.`);
      done.add(r.param);
    } else if (typeof v === 'number') {
      const [lo, hi] = r.action.range;
      const to = Math.min(Math.max(v, lo), hi);
      if (to === v) continue;
      (out as Record<Param, unknown>)[r.param] = to;
      warnings.push(`${r.name} ${v} was ${to > v ? 'raised' : 'lowered'} to ${to}: the ${style} style allows only ${lo} to ${hi}${under}.`);
      done.add(r.param);
    }
  }
  return out;
}
