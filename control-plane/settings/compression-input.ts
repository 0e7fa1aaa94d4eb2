/**
 * The body of PUT /api/v1/settings/compression: its JSON schema and the checks a schema cannot make (rule patterns,
 * one rule per pattern). A rule pattern that matches no known model is accepted with a warning (issue 13, bad input).
 */
import { svcError } from '../../core/errors.ts';
import { modelPatternProblem } from '../../core/ai/model-pattern.ts';
import { COMPRESSION_MODES, RULE_THRESHOLDS, type CompressionRule } from '../../core/ai/compression-settings.ts';

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

export const SETTINGS_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: {
    mode: { ...MODE, description: 'The instance mode: off (default), audit-only or on; teams, keys, rules and the header only lower it.' },
    keep_last_turns: { type: 'integer', minimum: 0, maximum: 1000, default: 4 },
    rules: { type: 'array', maxItems: MAX_RULES, items: RULE_SCHEMA, default: [] },
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
