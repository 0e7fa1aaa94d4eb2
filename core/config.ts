/**
 * Configuration from the environment, parsed and validated once at start. A bad variable stops the process with a
 * message that names it. Everything else reads the typed Config, never process.env.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseProfileOverrides, type ProfileOverrides } from './ai/provider-profiles.ts';
import { parseRedisUrl } from './counters/redis-url.ts';

export type Role = 'all' | 'proxy' | 'control-plane';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  dataDir: string;
  secretKey: string | undefined;
  adminToken: string | undefined;
  logLevel: string;
  production: boolean;
  allowPrivateWebhooks: boolean;
  /** OIDC issuers of trust rules (discovery, JWKS) may be private addresses (docs/identity.md). */
  allowPrivateIssuers: boolean;
  /** A separate identity issuer whose access tokens are accepted too (docs/identity.md#a-separate-identity-issuer). */
  externalIssuer: { issuer: string; jwksUrl: string | undefined; audience: string | undefined; autoProvision: boolean } | undefined;
  requestBodyTimeoutMs: number;
  /** Retention (docs/webhooks.md): days a handled outbox event, and a finished webhook delivery, are kept. */
  outboxRetentionDays: number;
  webhookDeliveryRetentionDays: number;
  /**
   * Days a gateway usage record is kept (docs/operations.md#partitioned-storage); the hourly and daily rollups that
   * analytics read outlive it. At least 32, so the current month's spend can always be counted again.
   */
  usageRetentionDays: number;
  bodyLimitBytes: number;
  /** Which peers may name the client in X-Forwarded-For (fastify's trustProxy: true, false or addresses). */
  trustProxy: boolean | string;
  upstreamTimeoutMs: number;
  /** Gateway usage records waiting to be written before new calls are refused (503 usage_backlog). */
  usageMaxQueued: number;
  /**
   * Open calls (docs/operations.md): how long a streamed call's provisional usage row lives without its node renewing
   * it (renewed every third of this), and how often the leader turns expired ones into usage records.
   */
  openCallLeaseMs: number;
  openCallSweepMs: number;
  providerProfilesFile: string | undefined;
  /** Overrides of the subscription provider profiles, read from SVC_PROVIDER_PROFILES (core/ai/provider-profiles.ts). */
  providerProfiles: ProfileOverrides;
  /** Team that receives every `account.state_changed` event besides the teams that used the account (docs/accounts.md). */
  accountEventsTeam: string | undefined;
  /** Error ingest writer: most events (and payload bytes) waiting before 503, events per batch, flush delay. */
  ingestQueueEvents: number;
  ingestQueueBytes: number;
  ingestBatchSize: number;
  ingestFlushMs: number;
  /**
   * The column a stored event's document goes to (docs/errors.md#event-documents): `jsonb` (data, as every
   * version before) or `json` (doc: its text, checked once; a fifth less of the database's work per event). Readers
   * take either.
   */
  eventDocuments: EventDocuments;
  /** Worker threads that prepare events (scrub, normalise, group); 0 = on the main thread. */
  ingestWorkers: number;
  /** Ingest request body bytes (as read and decoded) all requests of the node may hold at once before 503 ingest_overloaded. */
  ingestInflateBudgetBytes: number;
  /** Most bytes each writer's local journal (`<dataDir>/journal/<writer>/`) may hold while Postgres is unreachable. */
  journalMaxBytes: number;
  /** Password sign-in throttle (docs/identity.md): failures allowed per account name and per client IP in one window. */
  signinMaxFailuresPerUser: number;
  signinMaxFailuresPerIp: number;
  signinWindowS: number;
  /** GET /metrics and the observations behind it (docs/metrics.md); off: SVC_METRICS=false. */
  metrics: boolean;
  /** Bearer token /metrics requires (always when set; without it /metrics answers on a loopback HOST only). */
  metricsToken: string | undefined;
  /** Share of requests that get a request log line at info (1 = every one, 0 = none). */
  requestLogSample: number;
  /** The family's apps and pages services that projects link to (docs/links.md); unset = links answer 503. */
  appsPeer: PeerConfig | undefined;
  pagesPeer: PeerConfig | undefined;
  /** Link peers may be private addresses (docs/links.md#private-addresses). */
  allowPrivatePeers: boolean;
  peerTimeoutMs: number;
  /** The web panel's origin, allowed to call the gateway's /v1 and /v1beta from a browser (CORS; docs/panel.md). */
  panelOrigin: string | undefined;
  /** How the panel reaches the gateway, told to it by the control plane; unset = the panel's own origin. */
  gatewayUrl: string | undefined;
}

export type EventDocuments = 'jsonb' | 'json';

export interface PeerConfig {
  url: string;
  token: string;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
}

/**
 * SVC_TRUST_PROXY: by default only a peer on this machine or a private network (a load balancer) may name the client
 * in X-Forwarded-For; a client reaching a node directly from elsewhere cannot choose its own address. `true` trusts
 * every peer, `false` none, anything else a comma-separated list of addresses or ranges (CIDR).
 */
const TRUST_PRIVATE = 'loopback, linklocal, uniquelocal';

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw.trim() === '') return TRUST_PRIVATE;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  if (/^(false|no|off)$/i.test(raw)) return false;
  if (!/^[\w.:/, -]+$/.test(raw)) throw new ConfigError('SVC_TRUST_PROXY', `must be true, false or a comma-separated list of addresses (got "${raw}")`);
  return raw;
}

/** A share from 0 to 1 (SVC_REQUEST_LOG_SAMPLE); also on/off for 1/0. */
function share(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(on|true|yes)$/i.test(raw)) return 1;
  if (/^(off|false|no)$/i.test(raw)) return 0;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(name, `must be a number from 0 to 1, on or off (got "${raw}")`);
  return n;
}

function profileOverrides(file: string | undefined): ProfileOverrides {
  if (file === undefined) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError('SVC_PROVIDER_PROFILES', `names a file that cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${file}`);
  }
  try {
    return parseProfileOverrides(text);
  } catch (e) {
    throw new ConfigError('SVC_PROVIDER_PROFILES', `(${file}) ${(e as Error).message}`);
  }
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use one of ${protocols.join(', ')}`);
  return raw;
}

/** REDIS_URL: one server or a Redis Cluster (core/counters/redis-url.ts has the forms). */
function redis(env: Env): string | undefined {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  try {
    parseRedisUrl(raw);
  } catch (err) {
    throw new ConfigError('REDIS_URL', (err as Error).message);
  }
  return raw;
}

/** A link peer: its URL and this service's token there, both or neither (docs/links.md). */
function peer(env: Env, name: 'APPS' | 'PAGES'): PeerConfig | undefined {
  const u = url(env, `SVC_${name}_URL`, ['http:', 'https:']);
  const token = env[`SVC_${name}_TOKEN`] || undefined;
  if (u && !token) throw new ConfigError(`SVC_${name}_TOKEN`, `is required with SVC_${name}_URL (this service's token at that service)`);
  if (token && !u) throw new ConfigError(`SVC_${name}_URL`, `is required with SVC_${name}_TOKEN`);
  return u && token ? { url: u.replace(/\/+$/, ''), token } : undefined;
}

/** A browser origin (scheme, host, port) of a URL, as an Origin header names it. */
function originOf(u: string | undefined): string | undefined {
  return u === undefined ? undefined : new URL(u).origin;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const production = env.NODE_ENV === 'production';
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = redis(env);
  const publicUrl = (url(env, 'SVC_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, '');
  const secretKey = env.SVC_SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < 32) throw new ConfigError('SVC_SECRET_KEY', 'must be at least 32 characters');
  if (databaseUrl && !secretKey) throw new ConfigError('SVC_SECRET_KEY', 'is required when DATABASE_URL is set (every node must share it)');
  const adminToken = env.SVC_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('SVC_ADMIN_TOKEN', 'must be at least 16 characters');
  const metricsToken = env.SVC_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('SVC_METRICS_TOKEN', 'must be at least 16 characters');
  const dataDir = env.SVC_DATA_DIR || './data';
  const idUrl = url(env, 'SVC_ID_URL', ['http:', 'https:']);
  const idJwksUrl = url(env, 'SVC_ID_JWKS_URL', ['http:', 'https:']);
  const idIssuer = env.SVC_ID_ISSUER || idUrl?.replace(/\/+$/, '');
  if (idJwksUrl && !idIssuer) throw new ConfigError('SVC_ID_ISSUER', 'is required with SVC_ID_JWKS_URL (the iss of the tokens it signs)');
  const logLevel = oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info');
  return {
    port,
    host,
    publicUrl,
    databaseUrl,
    redisUrl,
    redisPrefix: env.SVC_REDIS_PREFIX || 'svc:',
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
    secretKey,
    adminToken,
    logLevel,
    production,
    // Private webhook targets: off everywhere unless the operator opts in (docs/webhooks.md, core/net/guarded-agent.ts).
    allowPrivateWebhooks: bool(env, 'SVC_ALLOW_PRIVATE_WEBHOOKS', false),
    allowPrivateIssuers: bool(env, 'SVC_ALLOW_PRIVATE_ISSUERS', false),
    externalIssuer: idIssuer
      ? { issuer: idIssuer, jwksUrl: idJwksUrl, audience: env.SVC_ID_AUDIENCE || undefined, autoProvision: bool(env, 'SVC_ID_AUTO_PROVISION', false) }
      : undefined,
    // The whole request (headers and body) must arrive within this; a trickling body is cut with 408 (docs/http.md).
    requestBodyTimeoutMs: int(env, 'SVC_REQUEST_BODY_TIMEOUT_MS', 60_000, 1000, 3_600_000),
    outboxRetentionDays: int(env, 'SVC_OUTBOX_RETENTION_DAYS', 7, 1, 36_500),
    webhookDeliveryRetentionDays: int(env, 'SVC_WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 36_500),
    usageRetentionDays: int(env, 'SVC_USAGE_RETENTION_DAYS', 90, 32, 36_500),
    bodyLimitBytes: int(env, 'SVC_BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    trustProxy: trustProxy(env.SVC_TRUST_PROXY),
    upstreamTimeoutMs: int(env, 'SVC_UPSTREAM_TIMEOUT_MS', 600_000, 1000, 3_600_000),
    usageMaxQueued: int(env, 'SVC_USAGE_MAX_QUEUED', 50_000, 1, 10_000_000),
    openCallLeaseMs: int(env, 'SVC_OPEN_CALL_LEASE_MS', 60_000, 1000, 3_600_000),
    openCallSweepMs: int(env, 'SVC_OPEN_CALL_SWEEP_MS', 10_000, 100, 3_600_000),
    providerProfilesFile: env.SVC_PROVIDER_PROFILES || undefined,
    providerProfiles: profileOverrides(env.SVC_PROVIDER_PROFILES || undefined),
    accountEventsTeam: env.SVC_ACCOUNT_EVENTS_TEAM || undefined,
    ingestQueueEvents: int(env, 'SVC_INGEST_QUEUE_EVENTS', 20_000, 1, 10_000_000),
    ingestQueueBytes: int(env, 'SVC_INGEST_QUEUE_BYTES', 32 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    ingestBatchSize: int(env, 'SVC_INGEST_BATCH_SIZE', 500, 1, 10_000),
    ingestFlushMs: int(env, 'SVC_INGEST_FLUSH_MS', 5, 0, 60_000),
    eventDocuments: oneOf(env, 'SVC_EVENT_DOCUMENTS', ['jsonb', 'json'] as const, 'jsonb'),
    ingestWorkers: int(env, 'SVC_INGEST_WORKERS', availableParallelism() > 1 ? 1 : 0, 0, 64),
    ingestInflateBudgetBytes: int(env, 'SVC_INGEST_INFLATE_BUDGET_BYTES', 64 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    journalMaxBytes: int(env, 'SVC_JOURNAL_MAX_BYTES', 1024 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024 * 1024),
    signinMaxFailuresPerUser: int(env, 'SVC_SIGNIN_MAX_FAILURES_PER_USER', 10, 1, 1_000_000),
    signinMaxFailuresPerIp: int(env, 'SVC_SIGNIN_MAX_FAILURES_PER_IP', 50, 1, 1_000_000),
    signinWindowS: int(env, 'SVC_SIGNIN_WINDOW_S', 900, 1, 7 * 86400),
    metrics: bool(env, 'SVC_METRICS', true),
    metricsToken,
    requestLogSample: share(env, 'SVC_REQUEST_LOG_SAMPLE', 1),
    appsPeer: peer(env, 'APPS'),
    pagesPeer: peer(env, 'PAGES'),
    allowPrivatePeers: bool(env, 'SVC_ALLOW_PRIVATE_PEERS', false),
    peerTimeoutMs: int(env, 'SVC_PEER_TIMEOUT_MS', 10_000, 100, 300_000),
    panelOrigin: originOf(url(env, 'SVC_PANEL_ORIGIN', ['http:', 'https:'])),
    gatewayUrl: url(env, 'SVC_GATEWAY_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
  };
}
