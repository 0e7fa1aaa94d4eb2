/** Response schemas of the compression settings and report (compression-routes.ts, compression-report.ts). */
import { COMPRESSION_MODES } from '../../core/ai/compression-settings.ts';
import { object, STRINGS, TIME_OR_NULL } from '../../core/http/response-schema.ts';
import { RULE_SCHEMA, SUMMARY_SCHEMA } from './compression-input.ts';

const SETTINGS_FIELDS = {
  mode: { type: 'string', enum: [...COMPRESSION_MODES] },
  keep_last_turns: { type: 'integer' },
  rules: { type: 'array', items: RULE_SCHEMA },
  summary: SUMMARY_SCHEMA,
  updated_at: TIME_OR_NULL,
};
export const COMPRESSION_SETTINGS = object(SETTINGS_FIELDS);
export const CHANGED_COMPRESSION_SETTINGS = object({ ...SETTINGS_FIELDS, warnings: STRINGS }, ['warnings']);

export const TEAM_COMPRESSION = object({ team: { type: 'string' }, mode: { type: ['string', 'null'], enum: [...COMPRESSION_MODES, null] } });

export const COMPRESSION_REPORT = object({
  days: { type: 'integer' },
  group_by: { type: 'string', enum: ['key', 'model', 'team'] },
  estimated: { type: 'boolean', description: 'Token counts are local estimates.' },
  items: {
    type: 'array',
    items: object({
      group: { type: 'string', description: 'The key id, model or team id.' },
      mode: { type: 'string', enum: ['on', 'audit-only'] },
      calls: { type: 'integer' },
      tokens_before: { type: 'integer' },
      tokens_after: { type: 'integer' },
      tokens_saved: { type: 'integer' },
      dollars_saved: { type: 'number' },
      dollars_saved_uncached: { type: 'number' },
      cache_breaks: { type: 'integer', description: 'Rewrites of an already-sent history within one session.' },
      tokens_rewritten: { type: 'integer', description: 'Estimated tokens those rewrites made the provider write to its cache again.' },
      dollars_cache_rewrites: { type: 'number', description: 'What those rewrites cost: their cache write instead of a cache read.' },
      dollars_saved_net: { type: 'number', description: 'dollars_saved less dollars_cache_rewrites; negative when compression made the sessions dearer.' },
    }),
  },
});
