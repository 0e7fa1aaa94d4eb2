/**
 * Claim conditions of a trust rule: `{"claim": "pattern"}`, all of which must hold. A pattern is exact, or a glob
 * when it holds `*` (any run of characters except `/`), `**` (any run, `/` included) or `?` (one character except
 * `/`). A rule must bind an owner exactly: one of the owner claims below, as an exact value, so that no repository
 * anywhere other than the intended owner's can satisfy it (names can be re-registered; numeric ids cannot).
 */
import { svcError } from '../../../core/errors.ts';

/** GitHub: repository_owner_id, repository_id; GitLab: namespace_id, project_id. */
export const OWNER_CLAIMS = ['repository_owner_id', 'repository_id', 'namespace_id', 'project_id'] as const;
const CLAIM_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_CONDITIONS = 16;

export type Conditions = Record<string, string>;

export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** Refuses conditions that are malformed or bind no owner exactly (400). */
export function checkConditions(conditions: unknown): Conditions {
  if (typeof conditions !== 'object' || conditions === null || Array.isArray(conditions)) throw svcError('validation_failed', 'conditions must be an object of claim names to patterns.', { field: 'conditions' });
  const entries = Object.entries(conditions);
  if (entries.length === 0 || entries.length > MAX_CONDITIONS) throw svcError('validation_failed', `A rule has 1 to ${MAX_CONDITIONS} conditions.`, { field: 'conditions' });
  for (const [claim, pattern] of entries) {
    if (!CLAIM_NAME.test(claim)) throw svcError('validation_failed', `"${claim.slice(0, 70)}" is not a claim name (lowercase letters, digits and _).`, { field: 'conditions' });
    if (typeof pattern !== 'string' || pattern === '' || pattern.length > 300) throw svcError('validation_failed', `The condition on ${claim} must be a string of 1 to 300 characters.`, { field: 'conditions' });
  }
  const bound = OWNER_CLAIMS.some((c) => typeof conditions[c as keyof typeof conditions] === 'string' && !isGlob(conditions[c as keyof typeof conditions] as string));
  if (!bound) throw svcError('trust_rule_unbound');
  return conditions as Conditions;
}

/** A claim value as conditions see it: strings as they are, numbers as decimal; anything else never matches. */
function claimText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** null when every condition holds; otherwise the first one that does not, in words. */
export function mismatch(conditions: Conditions, claims: Record<string, unknown>): string | null {
  for (const [claim, pattern] of Object.entries(conditions)) {
    const v = claimText(claims[claim]);
    if (v === undefined) return `the token has no ${claim} claim`;
    const ok = isGlob(pattern) ? globRegex(pattern).test(v) : v === pattern;
    if (!ok) return `${claim} is ${JSON.stringify(v.slice(0, 200))}, not ${isGlob(pattern) ? 'matching ' : ''}${JSON.stringify(pattern)}`;
  }
  return null;
}

/** The claims a rule's conditions looked at, as the token carried them (recorded with each exchange). */
export function matchedClaims(conditions: Conditions, claims: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.keys(conditions).map((c) => [c, claimText(claims[c]) ?? '']));
}
