/**
 * Model names and `*` patterns, as used by a gateway key's allowed models, an account's served models and price
 * overrides. A pattern is a model id where `*` matches any run of characters (also none): `claude-*`, `gpt-4o*`,
 * `*-mini`, `*`. Matching is case-sensitive and covers the whole id. Ids use letters, digits and `. - _ : / @`
 * (provider ids such as `claude-sonnet-4-5-20250929`, `gemini-2.5-pro`, `meta-llama/Llama-3.1-8B`, `qwen2.5:7b`).
 */

export const MODEL_NAME_MAX = 200;
const NAME_CHARS = /^[A-Za-z0-9._:/@-]+$/;
const PATTERN_CHARS = /^[A-Za-z0-9._:/@*-]+$/;

export function isPattern(name: string): boolean {
  return name.includes('*');
}

/** Why `name` is not a valid model id (patterns refused), or null when it is. */
export function modelNameProblem(name: string): string | null {
  if (name === '') return 'must not be empty';
  if (name.length > MODEL_NAME_MAX) return `is longer than ${MODEL_NAME_MAX} characters`;
  if (!NAME_CHARS.test(name)) return 'may contain only letters, digits and . - _ : / @';
  return null;
}

/** Why `pattern` is not a valid model id or pattern, or null when it is. */
export function modelPatternProblem(pattern: string): string | null {
  if (pattern === '') return 'must not be empty';
  if (pattern.length > MODEL_NAME_MAX) return `is longer than ${MODEL_NAME_MAX} characters`;
  if (!PATTERN_CHARS.test(pattern)) return 'may contain only letters, digits, . - _ : / @ and * as a wildcard';
  if (pattern.includes('**')) return 'has "**": one * already matches any run of characters';
  return null;
}

const compiled = new Map<string, RegExp>();

function regexOf(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether `model` is `pattern` (an exact id) or matches it (a `*` pattern). */
export function matchesModel(pattern: string, model: string): boolean {
  if (!isPattern(pattern)) return pattern === model;
  if (pattern === '*') return true;
  return regexOf(pattern).test(model);
}

/** Whether `model` matches one of `patterns`; an empty list allows every model. */
export function allowsModel(patterns: readonly string[], model: string): boolean {
  return patterns.length === 0 || patterns.some((p) => matchesModel(p, model));
}

/** How specific a pattern is: its number of literal characters (an exact id beats every pattern it matches). */
export function patternSpecificity(pattern: string): number {
  return isPattern(pattern) ? pattern.replaceAll('*', '').length : Number.MAX_SAFE_INTEGER;
}

/** The most specific of `patterns` that matches `model`, or undefined. */
export function bestMatch(patterns: Iterable<string>, model: string): string | undefined {
  let best: string | undefined;
  let score = -1;
  for (const p of patterns) {
    if (!matchesModel(p, model)) continue;
    const s = patternSpecificity(p);
    if (s > score || (s === score && best !== undefined && p.length > best.length)) {
      best = p;
      score = s;
    }
  }
  return best;
}
