/** Response schemas of the kept call bodies (call-bodies.ts callView). */
import { ANY, INTEGER_OR_NULL, object, STRING_OR_NULL, TIME } from '../../core/http/response-schema.ts';

const CALL_FIELDS = {
  id: { type: 'string' },
  key: { type: 'string' },
  team: { type: 'string' },
  model: { type: 'string', description: 'The model the client asked for (an alias stays an alias).' },
  served_model: STRING_OR_NULL,
  client_style: { type: 'string' },
  stream: { type: 'boolean' },
  status: { type: 'integer' },
  error_code: STRING_OR_NULL,
  truncated: { type: 'boolean', description: 'A body was cut at the size limit; it is then answered as text.' },
  request_chars: INTEGER_OR_NULL,
  response_chars: INTEGER_OR_NULL,
  created_at: TIME,
  expires_at: TIME,
};
export const CALL_SUMMARY = object(CALL_FIELDS);
export const CALL_DETAIL = object({
  ...CALL_FIELDS,
  request: { ...ANY, description: 'The request as received: JSON, or text when truncated.' },
  response: { ...ANY, description: 'The answer as the client got it (a stream as the assembled answer): JSON, or text.' },
});
