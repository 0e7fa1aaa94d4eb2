/**
 * The shapes of a normalised error event: what normalizeEvent produces, what grouping reads, what the writer
 * stores. Wire field names (snake_case) are kept inside the nested objects, which are stored as sent once
 * normalised; the top level is camelCase for the writer's use, with the whole stored document in `data`.
 * @see https://develop.sentry.dev/sdk/data-model/event-payloads/
 */

export const EVENT_LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

export interface StackFrame {
  filename?: string;
  abs_path?: string;
  function?: string;
  module?: string;
  package?: string;
  platform?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
  vars?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Stacktrace {
  /** Oldest → newest: the last frame is where the exception was raised. */
  frames: StackFrame[];
  [key: string]: unknown;
}

export interface ExceptionMechanism {
  type?: string;
  handled?: boolean;
  /** The type and value were made up by the SDK (captureMessage with a stack trace, signals…). */
  synthetic?: boolean;
  [key: string]: unknown;
}

export interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: ExceptionMechanism;
  stacktrace?: Stacktrace;
  [key: string]: unknown;
}

export interface Breadcrumb {
  /** RFC 3339 UTC, when the SDK sent a readable one. */
  timestamp?: string;
  type?: string;
  category?: string;
  message?: string;
  level?: string;
  data?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
  name?: string;
  [key: string]: unknown;
}

export type StringPairs = Array<[string, string]>;

export interface EventRequest {
  method?: string;
  url?: string;
  query_string?: string | StringPairs | Record<string, string>;
  cookies?: string | StringPairs | Record<string, string>;
  /** Always a list of [name, value] pairs once normalised (names keep their case; repeated names kept). */
  headers?: StringPairs;
  data?: unknown;
  env?: Record<string, unknown>;
  fragment?: string;
  [key: string]: unknown;
}

export interface NormalizedEvent {
  /** 32 lowercase hex. */
  eventId: string;
  /** When it happened, clamped to receivedAt when more than 60 s in the future or older than the retention. */
  timestamp: Date;
  receivedAt: Date;
  /** 'error' when a real (non-synthetic) exception is present, 'default' otherwise. */
  type: 'error' | 'default';
  level: EventLevel;
  /** Lowercase; 'other' when absent or unreadable. */
  platform: string;
  release?: string;
  dist?: string;
  environment?: string;
  serverName?: string;
  transaction?: string;
  logger?: string;
  /** The formatted message (params substituted). */
  message?: string;
  /** The message template before params were substituted (logentry.message), for grouping. */
  messageTemplate?: string;
  /** Oldest → newest: the last value is the raised exception. */
  exceptions: ExceptionValue[];
  breadcrumbs: Breadcrumb[];
  tags: Record<string, string>;
  user?: EventUser;
  request?: EventRequest;
  contexts: Record<string, Record<string, unknown>>;
  /** The custom fingerprint the SDK sent, when it sent one. */
  fingerprint?: string[];
  title: string;
  culprit: string;
  /**
   * The connection's IP when the SDK asked for it with `ip_address: "{{auto}}"`. Not stored in `data` (our
   * rule drops it); offered only as an input to the people-affected hash.
   */
  autoIp?: string;
  /** Fields that were present but unreadable, and were dropped (e.g. `tags`, `user.ip_address`). */
  dropped: string[];
  /** The whole event to store: the normalised fields in wire names, plus every field we do not interpret. */
  data: Record<string, unknown>;
}

/** What grouping, titles and culprits read: a subset of NormalizedEvent. */
export type GroupingInput = Pick<NormalizedEvent, 'exceptions' | 'level' | 'message' | 'messageTemplate' | 'fingerprint' | 'transaction'>;
