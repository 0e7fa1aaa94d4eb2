/**
 * An open call: the provisional usage row of a streamed gateway call in progress (migrations/…-usage-open-calls.sql,
 * docs/operations.md "Open calls"). It is made durable before the answer's first byte and deleted by the
 * transaction that writes the call's usage record, so that a node killed in the middle of a stream still leaves a
 * record of the call: the leader's job turns rows whose lease ran out into usage records from the estimate.
 *
 * The row holds the call's identity (the usage record's id, key, team, models, provider, account, styles, start)
 * and its reservation estimate (proxy/limits/call-estimate.ts): prompt tokens as request bytes / 4, the request's
 * max output tokens (or the model's default), priced for the model that serves it.
 */
import type { CallIdentity } from './usage-record.ts';

export interface OpenCall extends CallIdentity {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Columns of usage_open_calls the writer fills from a row (the lease columns are set by Postgres), in order. */
export const OPEN_COLUMNS: readonly (readonly [string, string])[] = [
  ['record_id', 'uuid'], ['node_id', 'text'], ['at', 'timestamptz'], ['key_id', 'text'], ['team_id', 'text'], ['model', 'text'],
  ['served_model', 'text'], ['alias', 'text'], ['provider', 'text'], ['account_id', 'text'], ['client_style', 'text'],
  ['upstream_style', 'text'], ['stream', 'bool'], ['input_tokens', 'int'], ['output_tokens', 'int'], ['cost_usd', 'float8'],
];

export function openValues(id: string, node: string, c: OpenCall): unknown[] {
  return [
    id, node, c.at, c.keyId, c.teamId, c.model, c.servedModel, c.alias, c.provider, c.accountId, c.clientStyle, c.upstreamStyle,
    c.stream, c.inputTokens, c.outputTokens, c.costUsd,
  ];
}

/**
 * The leases of a node's open calls, renewed in one statement (`$1` node, `$2` lease in seconds, `$3` the ids of
 * the calls still open on it: a row that reached Postgres after its record, e.g. from a journal replayed late, is
 * not renewed, and the leader's job deletes it once its lease runs out). The lease runs on Postgres's clock, as it
 * does when the row is inserted, so node clocks do not matter.
 */
export const RENEW_LEASES = `UPDATE usage_open_calls SET lease_until = now() + make_interval(secs => $2::float8), renewed_at = now()
  WHERE node_id = $1 AND record_id = ANY($3::uuid[])`;
