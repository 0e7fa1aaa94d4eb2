/**
 * The shapes of the answers the panel reads, taken from the service's OpenAPI document (schema.d.ts, regenerated
 * with `npm run panel:api-types`): each is the success answer of one operation, or a part of it. Only the event
 * payload (what error SDKs send, kept as an open object by the document) is written out here.
 */
import type { paths } from './schema';

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The success answer of an operation: its 200, else its 201. */
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A } ? Json<A> : R extends { 201: infer A } ? Json<A> : never
  : never;

export interface List<T> {
  items: T[];
  next_cursor: string | null;
}

export type Me = Ok<'/api/v1/users/me', 'get'>;

/** Compression modes (docs/compression.md), lowest first. */
export const COMPRESSION_MODES = ['off', 'audit-only', 'on'] as const;
export type CompressionMode = (typeof COMPRESSION_MODES)[number];

export type GatewayKey = Ok<'/api/v1/keys/{id}', 'get'>;
/** A short-lived stand-in for a key's secret, for the playground's gateway calls. */
export type PlaygroundCredential = Ok<'/api/v1/keys/{id}/playground-credential', 'post'>;
export type CreatedKey = Ok<'/api/v1/keys', 'post'>;

export type Usage = Ok<'/api/v1/usage', 'get'>;
export type UsageGroup = Usage['groups'][number];
/** The figures every group, total and point of the series has. */
export type Metrics = Omit<Usage['series'][number], 'at'>;

export type Account = Ok<'/api/v1/accounts', 'get'>['items'][number];
export type AccountDetail = Ok<'/api/v1/accounts/{id}', 'get'>;
export type QuotaWindow = AccountDetail['quota']['windows'][number];

export type Project = Ok<'/api/v1/projects/{id}', 'get'>;
export type Release = Ok<'/api/v1/projects/{id}/releases', 'get'>['items'][number];
export type IngestStats = Ok<'/api/v1/projects/{id}/stats', 'get'>;

export type Issue = Ok<'/api/v1/projects/{id}/issues', 'get'>['items'][number];
export type IssueState = Issue['state'];
export type IssueDetail = Ok<'/api/v1/issues/{id}', 'get'>;
export type EventSummary = Ok<'/api/v1/issues/{id}/events', 'get'>['items'][number];
export type Team = Ok<'/api/v1/teams/{id}', 'get'>;
export type Member = Ok<'/api/v1/teams/{id}/members', 'get'>['items'][number];
export type User = Ok<'/api/v1/users', 'get'>['items'][number];
export type Meta = Ok<'/api/v1/meta', 'get'>;
export type Health = Ok<'/api/v1/health', 'get'>;
export type Token = Ok<'/api/v1/tokens/{id}', 'get'>;
export type Alias = Ok<'/api/v1/aliases/{name}', 'get'>;
export type PriceItem = Ok<'/api/v1/prices', 'get'>['items'][number];
export type PriceFields = NonNullable<PriceItem['list']>;
export type SignInStarted = Ok<'/api/v1/accounts/oauth/start', 'post'>;
export type KeptCall = Ok<'/api/v1/calls', 'get'>['items'][number];
export type KeptCallDetail = Ok<'/api/v1/calls/{id}', 'get'>;
export type CompressionSettings = Ok<'/api/v1/settings/compression', 'get'>;
export type CompressionRule = CompressionSettings['rules'][number];
export type CompressionReportItem = Ok<'/api/v1/compression/report', 'get'>['items'][number];
export type Webhook = Ok<'/api/v1/webhooks/{id}', 'get'>;
export type Delivery = Ok<'/api/v1/webhooks/{id}/deliveries', 'get'>['items'][number];
export type Notification = Ok<'/api/v1/notifications', 'get'>['items'][number];

/** A stored event: the document keeps its payload open; the panel reads these fields of it. */
export type StoredEvent = Omit<Ok<'/api/v1/events/{event_id}', 'get'>, 'data'> & { data: SentryEvent };

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
