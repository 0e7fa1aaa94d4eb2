/**
 * Response schemas of the error-tracking routes: projects and their client keys, issues, events, releases and
 * ingest stats (views of project-view.ts, project-keys.ts, issue-view.ts, event-service.ts, release-service.ts,
 * stats-service.ts).
 */
import { INTEGER_OR_NULL, object, OPEN_OBJECT, STRING_OR_NULL, STRINGS, TIME, TIME_OR_NULL } from '../../core/http/response-schema.ts';
import { ISSUE_STATES } from './issue-view.ts';
import { LINK_VIEW } from '../links/links-schemas.ts';
import { STATS_GROUPS } from './stats-params.ts';

export const PROJECT_VIEW = object({
  id: { type: 'integer' },
  team: { type: 'string' },
  name: { type: 'string' },
  slug: { type: 'string' },
  platform: STRING_OR_NULL,
  dsn: { ...STRING_OR_NULL, description: 'What an SDK is given; null when every key is revoked.' },
  public_key: STRING_OR_NULL,
  events_per_minute: { type: 'integer' },
  spike_threshold: { type: 'integer' },
  scrub_keys: STRINGS,
  retention_days: { type: 'integer' },
  created_at: TIME,
});

const PROJECT_KEY_FIELDS = {
  public_key: { type: 'string' },
  project: { type: 'integer' },
  dsn: { type: 'string' },
  active: { type: 'boolean' },
  created_at: TIME,
  revoked_at: TIME_OR_NULL,
};
export const PROJECT_KEY_VIEW = object(PROJECT_KEY_FIELDS);
export const ROTATED_PROJECT_KEY = object({
  ...PROJECT_KEY_FIELDS,
  revoked: { ...STRINGS, description: 'The public keys refused from now on.' },
  links: { type: 'array', items: LINK_VIEW, description: 'The linked apps and aliases after re-linking with the new DSN; stale ones are retried (docs/links.md).' },
});
export const DELETED_PROJECT = {
  ...PROJECT_VIEW,
  required: [...(PROJECT_VIEW.required as string[]), 'links'],
  properties: {
    ...(PROJECT_VIEW.properties as Record<string, unknown>),
    links: {
      type: 'array',
      description: "What became of the project's links (docs/links.md): unlinked on the peer, or pending (retried by the links job, with the peer's error).",
      items: object({
        id: { type: 'string' },
        kind: { type: 'string', enum: ['app', 'alias'] },
        target: { type: 'string' },
        state: { type: 'string', enum: ['unlinked', 'pending'] },
        error: STRING_OR_NULL,
      }),
    },
  },
};
export const ROTATE_KEY_BODY = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { restart: { type: 'boolean', description: 'Also restart every linked app once it has the new DSN (it reads CLIENT_DSN only when it starts).' } },
} as const;

const ISSUE_FIELDS = {
  id: { type: 'string' },
  project: { type: 'integer' },
  team: { type: 'string' },
  fingerprint: { type: 'string' },
  title: { type: 'string' },
  culprit: { type: 'string' },
  level: { type: 'string' },
  type: { type: 'string' },
  state: { type: 'string', enum: [...ISSUE_STATES] },
  regressed: { type: 'boolean' },
  resolved_at: TIME_OR_NULL,
  resolved_in_release: STRING_OR_NULL,
  ignore_until_count: INTEGER_OR_NULL,
  ignore_remaining: { ...INTEGER_OR_NULL, description: 'Events until an ignored issue returns to unresolved.' },
  count: { type: 'integer' },
  people: { type: 'integer' },
  first_seen: TIME,
  last_seen: TIME,
  first_release: STRING_OR_NULL,
  last_release: STRING_OR_NULL,
  last_event_id: STRING_OR_NULL,
  assignee: { ...STRING_OR_NULL, description: 'The user id.' },
  url: { type: 'string' },
};
export const ISSUE_VIEW = object(ISSUE_FIELDS);
/** A list's issue, with its hourly counts (oldest first) when the list was asked for them (?hourly=). */
export const ISSUE_LIST_ITEM = object({ ...ISSUE_FIELDS, hourly: { type: 'array', items: { type: 'integer' } } }, ['hourly']);
export const ISSUE_DETAIL = object({ ...ISSUE_FIELDS, hourly: { type: 'array', items: object({ hour: TIME, count: { type: 'integer' } }) } });

const EVENT_FIELDS = {
  event_id: { type: 'string' },
  project: { type: 'integer' },
  issue: { type: 'string' },
  team: { type: 'string' },
  title: { type: 'string' },
  level: { type: 'string' },
  release: STRING_OR_NULL,
  environment: STRING_OR_NULL,
  timestamp: TIME,
  received_at: TIME,
  url: { type: 'string' },
  issue_url: { type: 'string' },
};
export const EVENT_SUMMARY = object(EVENT_FIELDS);
export const EVENT_DETAIL = object({ ...EVENT_FIELDS, data: { ...OPEN_OBJECT, description: 'The event as stored: normalised and scrubbed, in the error-ingest protocol fields.' } });

export const RELEASE_VIEW = object({
  version: { type: 'string' },
  project: { type: 'integer' },
  registered: { type: 'boolean', description: 'Registered through the API (not only seen in events).' },
  ref: STRING_OR_NULL,
  url: STRING_OR_NULL,
  created_at: TIME,
  first_seen: TIME_OR_NULL,
  last_seen: TIME_OR_NULL,
  new_issues: { type: 'integer' },
});

/** One group of outcomes: the values of the grouped fields and the quantity. */
const STATS_ENTRY = object({ ...Object.fromEntries(STATS_GROUPS.map((g) => [g, STRING_OR_NULL])), quantity: { type: 'integer' } }, STATS_GROUPS);
export const PROJECT_STATS = object({
  project: { type: 'integer' },
  since: TIME,
  until: TIME,
  interval: { type: 'string', enum: ['hour', 'day'] },
  group_by: { type: 'array', items: { type: 'string', enum: [...STATS_GROUPS] } },
  totals: { type: 'array', items: STATS_ENTRY },
  series: { type: 'array', items: object({ at: TIME, groups: { type: 'array', items: STATS_ENTRY } }) },
});
