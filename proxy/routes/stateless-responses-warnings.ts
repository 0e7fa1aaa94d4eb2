/**
 * What a responses-style request may ask of the gateway beyond one call (docs/gateway.md "Responses endpoint").
 * `previous_response_id` and `item_reference` are resolved from the key's stored responses before this runs
 * (responses-store/expand-references.ts), so what is left here is what the gateway does not keep:
 * - `conversation` and `background: true` need a conversation kept or an answer polled for: refused with 400
 *   `response_state_unsupported`, naming the field in `param`. Dropping them would send the model half a
 *   conversation, or make the client poll for an answer nobody keeps.
 * - `previous_response_id` still present (only when the caller checks a request on its own) is refused the same way.
 * - `store: true` for a key that keeps no responses: the call goes on, and `X-Svc-Warning` says it was not stored.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { svcError } from '../../core/errors.ts';

const STATEFUL = ['previous_response_id', 'conversation'] as const;

function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** Throws for a request that needs state the gateway does not keep; returns the warnings for what is dropped. */
export function statelessResponsesWarnings(body: Readonly<Record<string, unknown>>, keyStores = false): string[] {
  for (const field of STATEFUL) {
    if (given(body[field])) {
      throw svcError('response_state_unsupported', `${field} cannot be used through the gateway, which keeps no conversations${field === 'previous_response_id' ? ' for this key' : ''}: send the whole conversation in input.`, { param: field });
    }
  }
  if (body.background === true) {
    throw svcError('response_state_unsupported', 'background: true cannot be used through the gateway, which keeps no responses to poll: send the request without it (stream: true for long answers).', { param: 'background' });
  }
  return body.store === true && !keyStores ? ['store: true was ignored: this key keeps no responses (its response_store_ttl is off), so this one cannot be retrieved later.'] : [];
}
