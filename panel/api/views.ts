/**
 * The shapes of the answers the panel reads, as the service's views write them (control-plane/*-view.ts and the
 * routes). The OpenAPI document describes paths, parameters and bodies; answers join it as routes gain response
 * schemas, and these types then give way to the generated ones.
 */
export interface List<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Me {
  id: string | null;
  username: string;
  email?: string | null;
  is_superuser: boolean;
  scope: string;
  teams: { id: string; name: string; role: string }[];
}

/** Compression modes (docs/compression.md), lowest first. */
export const COMPRESSION_MODES = ['off', 'audit-only', 'on'] as const;
export type CompressionMode = (typeof COMPRESSION_MODES)[number];

export interface GatewayKey {
  id: string;
  name: string;
  team: string;
  owner: string | null;
  own: boolean;
  hint: string;
  models: string[];
  limits: Record<string, number | null>;
  log_bodies: string;
  /** Compression mode of the key's calls; null inherits the team's and the instance's. */
  compression?: CompressionMode | null;
  disabled: boolean;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedKey extends GatewayKey {
  key: string;
  warnings?: string[];
}

export interface Metrics {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  errors: number;
}

export interface UsageGroup extends Metrics {
  model?: string | null;
  key?: string | null;
  key_name?: string | null;
  account?: string | null;
  account_name?: string | null;
  team?: string | null;
  team_name?: string | null;
  latency_ms: { p50: number | null; p95: number | null };
}

export interface Usage {
  from: string;
  to: string;
  days: number;
  interval: 'day' | 'hour';
  group_by: string[];
  groups: UsageGroup[];
  truncated: boolean;
  totals: Metrics & { latency_ms: { p50: number | null; p95: number | null } };
  series: (Metrics & { at: string })[];
}

export interface QuotaWindow {
  name: string;
  family: string | null;
  used_fraction: number;
  left_fraction: number;
  resets_at: string | null;
  window_seconds: number | null;
  read_at: string;
  forecast_fraction: number | null;
  rate_per_hour: number | null;
}

export interface Account {
  id: string;
  name: string;
  provider: string;
  kind: 'api_key' | 'subscription';
  base_url: string | null;
  proxy_url: string | null;
  has_secret: boolean;
  secret_hint: string | null;
  models: string[];
  state: 'active' | 'disabled' | 'needs_sign_in' | 'paused';
  created_at: string;
}

export interface AccountDetail extends Account {
  quota: { read_at: string | null; source: string | null; error: string | null; windows: QuotaWindow[] };
  pauses: { family: string | null; until: string; window: string; reason: string }[];
  cooldown: { until: string; reason: string } | null;
  sign_in: { email: string | null; plan: string | null; token_expires_at: string | null; last_refresh_error: string | null } | null;
  state_changes: { from: string; to: string; reason: string; at: string }[];
}

export interface Project {
  id: number;
  team: string;
  name: string;
  slug: string;
  platform: string | null;
  dsn: string | null;
  public_key: string | null;
  events_per_minute: number;
  spike_threshold: number;
  scrub_keys: string[];
  retention_days: number;
  created_at: string;
}

export interface Release {
  version: string;
  first_seen: string | null;
  last_seen: string | null;
  created_at: string;
  new_issues: number;
}

export interface IngestStats {
  since: string;
  until: string;
  interval: 'hour' | 'day';
  totals: { outcome: string; quantity: number }[];
  series: { at: string; groups: { outcome: string; quantity: number }[] }[];
}

export type IssueState = 'unresolved' | 'resolved' | 'resolved_in_next_release' | 'ignored';

export interface Issue {
  id: string;
  project: number;
  title: string;
  culprit: string;
  level: string;
  type: string;
  state: IssueState;
  regressed: boolean;
  count: number;
  people: number;
  first_seen: string;
  last_seen: string;
  first_release: string | null;
  last_release: string | null;
  last_event_id: string | null;
  assignee: string | null;
}

export interface IssueDetail extends Issue {
  resolved_in_release: string | null;
  ignore_remaining: number | null;
  hourly: { hour: string; count: number }[];
}

export interface EventSummary {
  event_id: string;
  title: string;
  level: string;
  release: string | null;
  environment: string | null;
  timestamp: string;
  received_at: string;
}

export interface StoredEvent extends EventSummary {
  data: SentryEvent;
}

export interface Frame {
  filename?: string;
  abs_path?: string;
  module?: string;
  function?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
}

export interface SentryEvent {
  message?: string | { formatted?: string };
  exception?: { values?: { type?: string; value?: string; stacktrace?: { frames?: Frame[] } }[] };
  breadcrumbs?: { values?: Breadcrumb[] } | Breadcrumb[];
  tags?: Record<string, string> | [string, string][];
  user?: Record<string, unknown>;
  request?: { url?: string; method?: string; headers?: Record<string, string> | [string, string][] };
  contexts?: Record<string, Record<string, unknown>>;
}

export interface Breadcrumb {
  timestamp?: number | string;
  category?: string;
  level?: string;
  message?: string;
  type?: string;
  data?: Record<string, unknown>;
}
