/**
 * Compression settings as stored (migrations/20261124T1200-compression.sql) and the precedence of modes (issue 13
 * point 1): the effective mode of a call is the lowest of the instance mode, the most specific matching model
 * rule, the team's and the key's (an unset level inherits), and the `X-Svc-Compress` header may only lower it.
 * The control plane writes the settings and drops COMPRESSION_SETTINGS_CACHE; proxy nodes read them through it.
 */
import type { Queryable } from '../db/db.ts';
import { bestMatch } from './model-pattern.ts';

export const COMPRESSION_MODES = ['off', 'audit-only', 'on'] as const;
export type CompressionMode = (typeof COMPRESSION_MODES)[number];

export const COMPRESSION_SETTINGS_CACHE = 'compression-settings';

/** Thresholds a model rule may set (estimated tokens; see compressor/compress-options.ts). */
export const RULE_THRESHOLDS = ['min_tokens', 'lossy_at_tokens', 'huge_output_tokens', 'keep_last_turns'] as const;
export type RuleThreshold = (typeof RULE_THRESHOLDS)[number];

export interface CompressionRule extends Partial<Record<RuleThreshold, number>> {
  pattern: string;
  mode?: CompressionMode;
}

/** Summaries of the oldest turns (docs/compression.md "Summaries"): made by `model` as calls of the key `key_id`. */
export interface SummarySettings {
  model: string;
  key_id: string;
  /** Spans of fewer estimated tokens are never summarised (default DEFAULT_SUMMARY_MIN_TOKENS). */
  min_tokens?: number;
}

export const DEFAULT_SUMMARY_MIN_TOKENS = 8_000;

export interface CompressionSettings {
  mode: CompressionMode;
  keepLastTurns: number;
  rules: CompressionRule[];
  summary: SummarySettings | null;
  updatedAt: Date | null;
}

export const DEFAULT_COMPRESSION_SETTINGS: Readonly<CompressionSettings> = Object.freeze({ mode: 'off', keepLastTurns: 2, rules: [], summary: null, updatedAt: null });

const RANK: Record<CompressionMode, number> = { off: 0, 'audit-only': 1, on: 2 };

export function isCompressionMode(v: unknown): v is CompressionMode {
  return typeof v === 'string' && (COMPRESSION_MODES as readonly string[]).includes(v);
}

/** The lowest of the given modes; unset ones (null, undefined) inherit, i.e. do not count. */
export function lowestMode(first: CompressionMode, ...others: (CompressionMode | null | undefined)[]): CompressionMode {
  let low = first;
  for (const m of others) if (m != null && RANK[m] < RANK[low]) low = m;
  return low;
}

/** The most specific rule whose pattern matches the model. */
export function ruleFor(settings: CompressionSettings, model: string): CompressionRule | undefined {
  if (settings.rules.length === 0) return undefined;
  const pattern = bestMatch(settings.rules.map((r) => r.pattern), model);
  return pattern === undefined ? undefined : settings.rules.find((r) => r.pattern === pattern);
}

interface SettingsRow {
  mode: CompressionMode;
  keep_last_turns: number;
  rules: CompressionRule[];
  summary: SummarySettings | null;
  updated_at: Date;
}

export async function readCompressionSettings(db: Queryable): Promise<CompressionSettings> {
  const r = await db.query<SettingsRow>('SELECT mode, keep_last_turns, rules, summary, updated_at FROM compression_settings WHERE id');
  const row = r.rows[0];
  if (!row) return DEFAULT_COMPRESSION_SETTINGS;
  return { mode: row.mode, keepLastTurns: row.keep_last_turns, rules: row.rules, summary: row.summary ?? null, updatedAt: row.updated_at };
}
