/**
 * The body of PUT /api/v1/settings/compression: its JSON schema and the checks a schema cannot make (rule patterns,
 * one rule per pattern; the summary's key exists and may call the summary model). A rule pattern that matches no
 * known model is accepted with a warning (issue 13, bad input).
 */
import type { Queryable } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import { matchesModel, modelPatternProblem } from '../../core/ai/model-pattern.ts';
import { COMPRESSION_MODES, RULE_THRESHOLDS, type CompressionRule, type SummarySettings } from '../../core/ai/compression-settings.ts';

const MODE = { type: 'string', enum: [...COMPRESSION_MODES] } as const;
const TOKENS = { type: 'integer', minimum: 0, maximum: 100_000_000 } as const;
export const MAX_RULES = 100;

export const RULE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['pattern'],
  properties: {
    pattern: { type: 'string', description: 'A model id or * pattern; the most specific matching rule applies.' },
    mode: { ...MODE, description: 'Lowers the mode for matching models (a rule never raises it above the instance mode).' },
    min_tokens: { ...TOKENS, description: 'No compression below this conversation size (estimated tokens).' },
    lossy_at_tokens: { ...TOKENS, description: 'Past this size (a share of the model context), old huge outputs are cut to head and tail.' },
    huge_output_tokens: { ...TOKENS, description: 'An old tool output above this size counts as huge.' },
    keep_last_turns: { type: 'integer', minimum: 0, maximum: 1000, description: 'The last N turns are never touched.' },
  },
} as const;

export const SUMMARY_SCHEMA = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['model', 'key_id'],
  description: 'Summaries of the oldest turns, made through the gateway by this model as calls of this key (null: none).',
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200, description: 'The summary model (an id or alias the key may call).' },
    key_id: { type: 'string', minLength: 1, maxLength: 100, description: 'The gateway key the summary calls are billed to and limited as.' },
    min_tokens: { ...TOKENS, description: 'Spans of oldest turns smaller than this (estimated tokens) are never summarised (default 8000).' },
  },
} as const;

export const SETTINGS_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: {
    mode: { ...MODE, description: 'The instance mode: off (default), audit-only or on; teams, keys, rules and the header only lower it.' },
    keep_last_turns: { type: 'integer', minimum: 0, maximum: 1000, default: 2, description: 'The last N turns are never touched (default 2: the last tool call and its result).' },
    rules: { type: 'array', maxItems: MAX_RULES, items: RULE_SCHEMA, default: [] },
    summary: { ...SUMMARY_SCHEMA, description: 'Summaries of the oldest turns; null turns them off, absent keeps the current setting.' },
  },
} as const;

/** The rules in stored form (field names as in the API), refused when a pattern is invalid or repeated. */
export function checkRules(rules: readonly CompressionRule[]): CompressionRule[] {
  const seen = new Set<string>();
  return rules.map((r, i) => {
    const problem = modelPatternProblem(r.pattern);
    if (problem) throw svcError('validation_failed', `The pattern of rule ${i + 1} ("${r.pattern.slice(0, 200)}") ${problem}.`, { field: `rules[${i}].pattern` });
    if (seen.has(r.pattern)) throw svcError('validation_failed', `The pattern "${r.pattern}" has more than one rule; keep one.`, { field: `rules[${i}].pattern` });
    seen.add(r.pattern);
    const out: CompressionRule = { pattern: r.pattern };
    if (r.mode !== undefined) out.mode = r.mode;
    for (const t of RULE_THRESHOLDS) if (r[t] !== undefined) out[t] = r[t];
    return out;
  });
}

/** The summary setting in stored form, refused when its key does not exist or may not call its model. */
export async function checkSummary(db: Queryable, summary: SummarySettings | null): Promise<SummarySettings | null> {
  if (summary === null) return null;
  const r = await db.query<{ allowed_models: string[] }>(
    'SELECT allowed_models FROM gateway_keys WHERE id = $1 AND deleted_at IS NULL AND NOT disabled', [summary.key_id],
  );
  const key = r.rows[0];
  if (!key) throw svcError('validation_failed', `The summary key "${summary.key_id}" does not exist or is disabled.`, { field: 'summary.key_id' });
  const allowed = key.allowed_models ?? [];
  if (allowed.length > 0 && !allowed.some((p) => matchesModel(p, summary.model))) {
    throw svcError('validation_failed', `The summary key "${summary.key_id}" may not call the model "${summary.model}".`, { field: 'summary.model' });
  }
  const out: SummarySettings = { model: summary.model, key_id: summary.key_id };
  if (summary.min_tokens !== undefined) out.min_tokens = summary.min_tokens;
  return out;
}
