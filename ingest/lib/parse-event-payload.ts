/**
 * The JSON of one event item (or a decoded /store/ body): a JSON object, or invalid_event (400).
 * Parsing is separate from normalizeEvent so that the endpoint can check the payload early and the writer
 * can normalise what was queued.
 */
import { svcError } from '../../core/errors.ts';
import { isObject } from './event-values.ts';

export function parseEventPayload(payload: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    throw svcError('invalid_event', 'The event is not valid JSON.');
  }
  if (!isObject(value)) throw svcError('invalid_event', 'The event must be a JSON object.');
  return value;
}
