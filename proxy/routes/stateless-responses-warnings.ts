/**
 * What a responses-style request may ask of the gateway, which keeps no state between calls (docs/gateway.md
 * "Responses endpoint"). The responses API can store answers and chain calls on them; the gateway forwards each
 * call as a whole transcript and stores nothing, so:
 * - `previous_response_id`, `conversation` and `background: true` need an answer or a conversation kept (or polled
 *   for) at the provider: refused with 400 `response_state_unsupported`, naming the field in `param`. Dropping them
 *   would send the model half a conversation, or make the client poll for an answer nobody keeps.
 * - `store: true` only asks the provider to keep a copy: the call goes on, and `X-Svc-Warning` says it was not stored.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { svcError } from '../../core/errors.ts';

const STATEFUL = ['previous_response_id', 'conversation'] as const;

function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** Throws for a request that needs kept state; returns the warnings for what is dropped. */
export function statelessResponsesWarnings(body: Readonly<Record<string, unknown>>): string[] {
  for (const field of STATEFUL) {
    if (given(body[field])) {
      throw svcError('response_state_unsupported', `${field} cannot be used through the gateway, which keeps no responses or conversations: send the whole conversation in input (with store: false).`, { param: field });
    }
  }
  if (body.background === true) {
    throw svcError('response_state_unsupported', 'background: true cannot be used through the gateway, which keeps no responses to poll: send the request without it (stream: true for long answers).', { param: 'background' });
  }
  return body.store === true ? ['store: true was ignored: the gateway keeps no responses, so this one cannot be retrieved later.'] : [];
}
