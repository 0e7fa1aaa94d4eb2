// Responses-style response object (non-streamed, or the `response` of a terminal stream event) → Reply.
// The stop reason comes from `status` and `incomplete_details.reason`; a completed turn with function calls is a
// `tool_use` stop. A failed response is an error, not a reply: callers check `status` first (decodeResponsesError
// reads `response.error`); here it becomes stopReason `error`.
// @see https://platform.openai.com/docs/api-reference/responses/object

import type { Reply } from '../model.ts';
import { isPlainObject } from '../tool-arguments.ts';
import { translationError } from '../translation-error.ts';
import { convertResponsesUsage } from './convert-responses-usage.ts';
import { mapResponsesStatus } from './map-responses-status.ts';
import { decodeOutputItems } from './responses-items.ts';
import type { ResponsesResponse } from './types.ts';

export function decodeResponsesResponse(json: unknown): Reply {
  if (!isPlainObject(json)) throw translationError('The responses-style answer is not a JSON object.');
  const r = json as unknown as ResponsesResponse;
  const parts = decodeOutputItems(Array.isArray(r.output) ? r.output.filter(isPlainObject) as ResponsesResponse['output'] : []);
  const reply: Reply = {
    id: typeof r.id === 'string' ? r.id : '',
    model: typeof r.model === 'string' ? r.model : '',
    parts,
    stopReason: mapResponsesStatus(r.status ?? 'completed', r.incomplete_details?.reason, parts.some((p) => p.type === 'tool_call')),
    usage: convertResponsesUsage(r.usage),
  };
  if (typeof r.created_at === 'number') reply.created = r.created_at;
  return reply;
}
