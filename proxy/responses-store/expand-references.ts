/**
 * Stored responses on the request side: a responses request's `previous_response_id` and `item_reference` items are
 * replaced by what the key stored (core/ai/stored-responses.ts) before anything else reads the request, so every
 * upstream style — translated or not — gets the whole conversation, and any node can serve the next turn.
 *
 * - `previous_response_id`: the earlier call's whole input, then its output items, then this request's input
 *   (its `instructions` are not carried over, as in the responses API).
 * - `item_reference`: the stored item of that id (an input or output item of one of the key's stored responses).
 * A reference that cannot be resolved is refused, never dropped: 400 `response_reference_unresolved` naming it; a
 * response of another key is 404 `not_found` (as if absent); an expired one is 404 `not_found` saying it expired.
 */
import { svcError } from '../../core/errors.ts';
import type { ResponseStore, StoredItem, StoredResponse } from '../../core/ai/stored-responses.ts';

export interface ExpandedRequest {
  /** The request with the references replaced (the same object when it had none). */
  body: Record<string, unknown>;
  /** Its whole input as items: what a stored copy of this call keeps. */
  input: StoredItem[];
  changed: boolean;
}

/** The input as items (a string input is one user message). */
export function inputItems(input: unknown): StoredItem[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? (input as StoredItem[]) : [];
}

const isReference = (item: StoredItem): boolean => item.type === 'item_reference';

export async function expandStoredReferences(
  store: ResponseStore, keyId: string, storeOn: boolean, body: Record<string, unknown>, now: Date,
): Promise<ExpandedRequest> {
  const previousId = body.previous_response_id;
  const own = inputItems(body.input);
  const references = own.filter(isReference);
  if ((previousId === undefined || previousId === null || previousId === '') && references.length === 0) {
    return { body, input: own, changed: false };
  }
  if (!storeOn) {
    const what = references.length > 0 && previousId == null ? `item_reference ${String(references[0].id)}` : 'previous_response_id';
    throw svcError('response_state_unsupported', `${what} cannot be resolved: this key keeps no responses (its response_store_ttl is off); send the whole conversation in input.`, { param: previousId != null ? 'previous_response_id' : 'input' });
  }

  let earlier: StoredItem[] = [];
  if (typeof previousId === 'string' && previousId !== '') {
    const stored = await store.get(keyId, previousId);
    // Another key's response is answered as if it did not exist (its contents are that key's).
    if (!stored && (await store.heldByAnotherKey(keyId, previousId))) {
      throw svcError('not_found', `No response ${previousId} exists for this key.`, { param: 'previous_response_id' });
    }
    earlier = previousItems(stored, previousId, now);
  }
  else if (previousId !== undefined && previousId !== null) {
    throw svcError('response_reference_unresolved', 'previous_response_id must be a string (the id of an earlier response).', { param: 'previous_response_id' });
  }

  let resolved = own;
  if (references.length > 0) {
    const ids = references.map((r) => String(r.id ?? ''));
    const found = await store.items(keyId, ids, now);
    resolved = own.map((item, i) => {
      if (!isReference(item)) return item;
      const hit = found.get(String(item.id ?? ''));
      if (!hit) {
        throw svcError('response_reference_unresolved', `input[${i}] is an item_reference to ${JSON.stringify(item.id ?? null)}, which no stored response of this key holds (never stored, deleted or expired); send the item itself.`, { param: `input[${i}]` });
      }
      return hit;
    });
  }

  const input = [...earlier, ...resolved];
  const { previous_response_id: _dropped, ...rest } = body;
  return { body: { ...rest, input }, input, changed: true };
}

function previousItems(stored: StoredResponse | undefined, id: string, now: Date): StoredItem[] {
  if (!stored) {
    throw svcError('response_reference_unresolved', `previous_response_id ${JSON.stringify(id)} names no response this key stored: it was never stored (store: false, or the key keeps none) or was deleted.`, { param: 'previous_response_id' });
  }
  if (stored.expiresAt.getTime() <= now.getTime()) {
    throw svcError('not_found', `Response ${id} expired at ${stored.expiresAt.toISOString()}: this key keeps responses for its response_store_ttl; send the whole conversation in input.`, { param: 'previous_response_id' });
  }
  return [...stored.input, ...(stored.response.output ?? [])];
}
