/** Request and response schemas of the link routes (links-routes.ts; the view is link-store.ts linkView). */
import { object, STRING_OR_NULL, TIME, TIME_OR_NULL } from '../../core/http/response-schema.ts';
import { LINK_KINDS, TARGET_PATTERN } from './link-kinds.ts';

export const LINK_VIEW = object({
  id: { type: 'string' },
  project: { type: 'integer' },
  kind: { type: 'string', enum: [...LINK_KINDS], description: 'app: an app of the apps service; alias: an alias of the pages service.' },
  target: { type: 'string', description: 'The app id or the alias name.' },
  environment: { ...STRING_OR_NULL, description: 'The environment the script reports (aliases).' },
  state: { type: 'string', enum: ['ok', 'stale'], description: 'stale: the peer has not taken the current DSN (or, for an alias, its newest release) yet; it is retried.' },
  last_error: { ...STRING_OR_NULL, description: "Why the last attempt failed, in the peer's words." },
  restart_requested: { type: 'boolean', description: 'The app is restarted once it has the new DSN.' },
  release: { ...STRING_OR_NULL, description: "Aliases: the release their pages report, <alias>@<deploy id> of the newest deploy that did not fail (null before the first)." },
  last_deploy_at: { ...TIME_OR_NULL, description: 'The newest deploy read from the peer.' },
  polled_at: TIME_OR_NULL,
  created_at: TIME,
});

export const PROJECT_ID_TARGET = {
  type: 'object',
  properties: { id: { type: 'string' }, target: { type: 'string', pattern: TARGET_PATTERN } },
  required: ['id', 'target'],
} as const;

export const LINK_APP_BODY = { type: ['object', 'null'], additionalProperties: false, properties: {} } as const;

export const LINK_ALIAS_BODY = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { environment: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'What the script reports as environment; default production.' } },
} as const;
