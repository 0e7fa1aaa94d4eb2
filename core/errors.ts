/**
 * The catalogue of every error the service can answer with. Codes are the stable snake_case strings clients switch
 * on; each has its HTTP status and a default English sentence. Surfaces turn a SvcError into their own wire shape
 * (the family's error object under /api/v1 and ingest, the caller's style on /v1 and /v1beta).
 *
 * Add new codes to the section of the feature that raises them. Keep messages as sentences a person understands.
 */

export interface ErrorDef {
  readonly status: number;
  readonly message: string;
}

const def = (status: number, message: string): ErrorDef => ({ status, message });

export const ERRORS = {
  // --- generic HTTP / conventions ---
  not_found: def(404, 'The resource was not found.'),
  route_not_found: def(404, 'No route matches this method and path.'),
  method_not_allowed: def(405, 'This method is not allowed on this path.'),
  invalid_json: def(400, 'The request body is not valid JSON.'),
  validation_failed: def(400, 'The request is not valid.'),
  invalid_cursor: def(400, 'The cursor is not valid; start again without a cursor.'),
  invalid_limit: def(400, 'The limit is out of range.'),
  invalid_ttl: def(400, 'The ttl is not valid: use seconds, a duration such as 12h or 3d, or never.'),
  invalid_dns_label: def(400, 'The name must be a DNS label: 1 to 63 lowercase letters, digits or hyphens, not starting or ending with a hyphen.'),
  payload_too_large: def(413, 'The request body is larger than allowed.'),
  unsupported_media_type: def(415, 'The content type of the request is not supported.'),
  unsupported_content_encoding: def(415, 'The content encoding of the request is not supported.'),
  rate_limited: def(429, 'Too many requests; retry later.'),
  internal_error: def(500, 'An internal error occurred.'),
  service_unavailable: def(503, 'The service is temporarily unavailable; retry later.'),
  conflict: def(409, 'The resource already exists.'),
  bad_request: def(400, 'The request is not valid HTTP.'),
  request_timeout: def(408, 'The request was not received in time; send it again, faster.'),
  request_headers_too_large: def(431, 'The request headers are larger than allowed.'),
  private_target_refused: def(400, 'The URL points at a private, loopback or link-local address, which this instance does not allow.'),

  // --- identity ---
  unauthenticated: def(401, 'Authentication is required: send a valid token in the Authorization header.'),
  invalid_token: def(401, 'The token is not valid.'),
  token_expired: def(401, 'The token has expired.'),
  token_revoked: def(401, 'The token has been revoked.'),
  invalid_credentials: def(401, 'The user name or password is wrong.'),
  too_many_sign_in_attempts: def(429, 'Too many failed sign-in attempts for this user name or from this address; wait until the time in Retry-After has passed, then try again.'),
  forbidden: def(403, 'You are not allowed to do this.'),
  insufficient_scope: def(403, "The token's scope does not allow this."),
  superuser_required: def(403, 'Only an administrator of this instance may do this.'),
  cross_site_request: def(403, 'Cross-site requests are refused for cookie-authenticated sessions.'),
  team_required: def(400, 'Name the team with the X-Svc-Team header or the team query parameter.'),
  team_not_found: def(404, 'The team was not found or you are not a member of it.'),
  team_last_owner: def(409, 'A team must keep at least one owner: make another member owner first.'),
  invalid_issuer: def(400, 'The issuer is not an OpenID Connect issuer whose discovery document and keys can be read.'),
  trust_rule_unbound: def(400, 'A trust rule must bind an owner exactly (GitHub repository_owner_id or repository_id, GitLab namespace_id or project_id): a rule that any repository could satisfy is refused.'),

  // --- webhooks ---
  invalid_webhook_url: def(400, 'The webhook URL must be an absolute http or https URL.'),

  // --- MCP ---
  unsupported_protocol_version: def(400, 'The MCP-Protocol-Version header names a protocol version this server does not support.'),

  // --- AI gateway ---
  invalid_api_key: def(401, 'The gateway key is missing or not valid.'),
  model_not_allowed: def(403, 'This key is not allowed to use this model.'),
  model_not_found: def(404, 'No account serves this model and no alias has this name.'),
  model_required: def(400, 'The request must name a model.'),
  invalid_model: def(400, 'The model name contains a control character or an invalid Unicode character.'),
  invalid_request: def(400, 'The request body is not valid for this API.'),
  invalid_compress_header: def(400, 'The X-Svc-Compress header must be off, audit-only or on.'),
  response_state_unsupported: def(400, 'The gateway keeps no responses or conversations: send the whole conversation in input instead of previous_response_id, conversation or background.'),
  response_reference_unresolved: def(400, 'A previous_response_id or item_reference names nothing this key stored: send the items themselves.'),
  upstream_unreachable: def(502, 'The upstream provider could not be reached.'),
  upstream_connection_lost: def(502, 'The connection to the upstream provider was lost before its answer was complete.'),
  upstream_timeout: def(504, 'The upstream provider did not answer in time.'),
  upstream_error: def(502, 'The upstream provider answered with an error.'),
  upstream_bad_response: def(502, 'The upstream provider sent a response that could not be read.'),
  no_account_available: def(503, 'No provider account is available for this model right now.'),
  key_requests_per_minute: def(429, "The key's requests-per-minute limit is reached."),
  key_requests_per_day: def(429, "The key's requests-per-day limit is reached."),
  key_tokens_per_month: def(403, "The key's monthly token budget is spent."),
  key_dollars_per_month: def(403, "The key's monthly dollar budget is spent."),
  model_unpriced: def(403, 'The model has no price, so a dollar budget cannot count the call.'),
  team_ai_tokens: def(403, "The team's monthly AI token budget is spent."),
  team_ai_keys: def(422, 'The team already has as many gateway keys as its limit allows.'),
  usage_backlog: def(503, 'Usage records cannot be written right now (the database is slow or unreachable); new calls are refused until they are. Retry shortly.'),
  counters_unavailable: def(503, 'The limit counters are unavailable; the request is refused rather than let through unmetered.'),

  // --- subscription accounts (sign-in, tokens, quota) ---
  oauth_state_unknown: def(400, 'The sign-in state is unknown or was already used; start the sign-in again.'),
  oauth_state_expired: def(400, 'The sign-in took longer than 15 minutes and expired; start it again.'),
  oauth_state_mismatch: def(400, 'The pasted code or callback URL belongs to another sign-in (its state does not match); paste the one of this sign-in.'),
  oauth_callback_invalid: def(400, 'Paste the authorization code or the whole callback URL that the provider showed after signing in.'),
  oauth_access_denied: def(400, 'The sign-in was refused or cancelled at the provider.'),
  oauth_code_rejected: def(400, 'The provider refused the code: it expired, was already used or was mistyped; start the sign-in again.'),
  oauth_provider_unavailable: def(502, "The provider's sign-in service could not be reached or answered unexpectedly; try again shortly."),
  oauth_flow_unsupported: def(400, 'This provider has no device sign-in; use the code flow.'),
  oauth_not_configured: def(400, "This provider's profile is missing a value the sign-in needs (see docs/accounts.md)."),
  account_needs_sign_in: def(503, "The provider account's sign-in expired or was revoked; an administrator must sign it in again."),
  account_token_unavailable: def(503, "The provider account's access token expired and could not be refreshed (the provider is unreachable); retry shortly."),

  // --- error ingest ---
  missing_client_key: def(401, 'No client key: send it in X-Sentry-Auth, Authorization, the sentry_key query parameter or the envelope dsn.'),
  unknown_client_key: def(403, 'The client key is not valid for this project.'),
  conflicting_client_keys: def(400, 'The request carries several client keys that do not agree.'),
  project_not_found: def(404, 'The project does not exist.'),
  invalid_project_id: def(400, 'Project ids are numeric.'),
  invalid_envelope: def(400, 'The envelope is malformed.'),
  invalid_event: def(400, 'The event is not a valid JSON object.'),
  invalid_event_id: def(400, 'The event_id must be 32 hexadecimal characters or a UUID.'),
  invalid_compression: def(400, 'The body is not what its Content-Encoding claims.'),
  event_too_large: def(413, 'An event item is larger than 1 MB once decompressed.'),
  envelope_too_large: def(413, 'The envelope is larger than 20 MB once decompressed.'),
  project_events_per_minute: def(429, "The project's events-per-minute limit is reached."),
  team_errors_events: def(429, "The team's monthly error-event limit is reached."),
  ingest_queue_full: def(503, 'The ingest queue is full; retry shortly.'),
  ingest_overloaded: def(503, 'The server is reading as many request bodies as its memory budget allows; retry shortly.'),

  // --- durable writes (core/writes) ---
  journal_full: def(503, "The database is unreachable and this node's local journal is full; retry shortly."),

  // --- error tracking management (projects, issues, releases) ---
  invalid_issue_state: def(400, 'The state must be one of unresolved, resolved, resolved_in_next_release or ignored.'),
  invalid_ignore_count: def(400, 'The ignore_until_count must be a whole number from 1 to 1000000000, given with the state ignored.'),
  assignee_not_allowed: def(422, 'An issue can be assigned only to yourself ("me") or to nobody (null).'),
  assignee_needs_user: def(422, 'Assigning to "me" needs the credentials of a user; this token belongs to no user.'),
  invalid_release_version: def(400, 'A release version is 1 to 250 characters with no control characters and no leading or trailing spaces.'),
  invalid_time: def(400, 'A time must be ISO 8601, such as 2026-01-15T12:00:00Z or the date 2026-01-15.'),
  invalid_time_range: def(400, 'The time range is not valid: until must be later than since, at most 90 days after it.'),

  // --- links to the apps and pages services (docs/links.md) ---
  integration_not_configured: def(503, 'This instance is not configured to link to that service: its URL and token are not set (docs/links.md).'),
  link_refused: def(403, 'The linked service refused: you may not change that app or alias there.'),
  link_taken: def(409, 'That app or alias is already linked to another project; unlink it there first.'),
  peer_unreachable: def(502, 'The linked service could not be reached or did not answer in time; nothing was linked.'),
  peer_bad_response: def(502, 'The linked service answered with something that could not be read; nothing was linked.'),
  peer_error: def(502, 'The linked service answered with an error; nothing was linked.'),
} as const satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof ERRORS;

const MARK = Symbol.for('svc.error');

/** A refusal with a catalogued code. Recognise it with isSvcError, not instanceof. */
export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly [MARK] = true;

  constructor(code: ErrorCode, message?: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = details;
    // Every 503 says when to come back (clients and load balancers back off instead of hammering a recovering node).
    this.headers = this.status === 503 && !Object.keys(headers).some((k) => k.toLowerCase() === 'retry-after') ? { ...headers, 'retry-after': '5' } : headers;
  }
}

export function svcError(code: ErrorCode, message?: string, details?: Record<string, unknown>, headers?: Record<string, string>): SvcError {
  return new SvcError(code, message, details, headers);
}

export function isSvcError(e: unknown): e is SvcError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARK] === true;
}

/**
 * The family's error object: {"error":{"code","message","details"}}. By the family's rule every missing resource
 * answers the one code `not_found`: a specific one (`project_not_found`, `team_not_found`, `route_not_found`, …)
 * becomes `not_found` with the specific code kept in `details.kind`. The provider-style endpoints (/v1, /v1beta)
 * answer in their own styles and keep the specific codes.
 */
export function errorBody(e: SvcError): { error: { code: string; message: string; details: Record<string, unknown> } } {
  if (e.code !== 'not_found' && e.code.endsWith('_not_found')) {
    return { error: { code: 'not_found', message: e.message, details: { ...e.details, kind: e.code } } };
  }
  return { error: { code: e.code, message: e.message, details: e.details } };
}
