/**
 * The settable fields of a project, shared by create (POST /api/v1/projects) and update (PATCH
 * /api/v1/projects/{id}), and their JSON schemas. Defaults live in the table (events per minute 600, spike threshold
 * 100 an hour, no extra scrub keys, retention 30 days).
 */

export const SLUG_PATTERN = '^(?!-)[a-z0-9-]{1,50}(?<!-)$';

export const PROJECT_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  slug: { type: 'string', pattern: SLUG_PATTERN, description: 'Lowercase letters, digits and hyphens; default: from the name.' },
  platform: { type: ['string', 'null'], maxLength: 64 },
  events_per_minute: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Accepted events per minute (default 600).' },
  spike_threshold: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'Events of one issue within an hour that make a spike (default 100).' },
  scrub_keys: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 }, description: 'Extra keys to scrub, beside the built-in list.' },
  retention_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Days events are kept (default 30); issues and their counts stay.' },
} as const;

export const CREATE_PROJECT_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: PROJECT_FIELDS,
} as const;

export const UPDATE_PROJECT_BODY = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PROJECT_FIELDS,
} as const;

export interface ProjectInput {
  name?: string;
  slug?: string;
  platform?: string | null;
  events_per_minute?: number;
  spike_threshold?: number;
  scrub_keys?: string[];
  retention_days?: number;
}

/** Column names of the settable fields, in a fixed order (UPDATE … SET built from the given ones). */
export const PROJECT_COLUMNS_SETTABLE = ['name', 'slug', 'platform', 'events_per_minute', 'spike_threshold', 'scrub_keys', 'retention_days'] as const;
