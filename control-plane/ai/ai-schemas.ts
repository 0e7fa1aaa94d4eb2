/**
 * Response schemas of the AI routes: gateway keys, provider accounts (with quota windows and sign-in), subscription
 * sign-in, aliases and prices (views of key-service.ts, account-view.ts, quota/account-details.ts, oauth/, the routes).
 */
import { KEY_LIMITS_SCHEMA } from '../../core/ai/key-limits.ts';
import { COMPRESSION_MODES } from '../../core/ai/compression-settings.ts';
import { ANY, INTEGER_OR_NULL, nullable, NUMBER_OR_NULL, object, STRING_OR_NULL, STRINGS, TIME, TIME_OR_NULL } from '../../core/http/response-schema.ts';
import { ACCOUNT_KINDS, PROVIDERS } from './account-input.ts';
import { LOG_BODIES } from './key-service.ts';

/** Sentences about accepted input that may be a mistake (e.g. a model no account serves). */
const WARNINGS = { ...STRINGS, description: 'Accepted, but probably a mistake (e.g. a model this instance does not know).' };

const KEY_FIELDS = {
  id: { type: 'string' },
  name: { type: 'string' },
  team: { type: 'string' },
  owner: { ...STRING_OR_NULL, description: 'The user the key belongs to inside the team; null for a team key.' },
  own: { type: 'boolean' },
  hint: { type: 'string', description: 'The first and last characters of the secret.' },
  models: STRINGS,
  limits: KEY_LIMITS_SCHEMA,
  log_bodies: { type: 'string', enum: [...LOG_BODIES] },
  compression: { type: ['string', 'null'], enum: [...COMPRESSION_MODES, null] },
  response_store_ttl: { type: 'string', description: 'How long stored responses (previous_response_id) are kept: 1d to 30d, or off.' },
  disabled: { type: 'boolean' },
  created_by: STRING_OR_NULL,
  created_at: TIME,
  updated_at: TIME,
  last_used_at: TIME_OR_NULL,
};
export const KEY_VIEW = object(KEY_FIELDS);
export const CHANGED_KEY = object({ ...KEY_FIELDS, warnings: WARNINGS }, ['warnings']);
export const CREATED_KEY = object({ ...KEY_FIELDS, key: { type: 'string', description: 'The sk-svc- secret, shown once.' }, warnings: WARNINGS }, ['warnings']);
export const DELETED_KEY = object({ ...KEY_FIELDS, deleted_at: TIME });

const ACCOUNT_FIELDS = {
  id: { type: 'string' },
  name: { type: 'string' },
  provider: { type: 'string', enum: [...PROVIDERS] },
  kind: { type: 'string', enum: [...ACCOUNT_KINDS] },
  base_url: STRING_OR_NULL,
  proxy_url: { ...STRING_OR_NULL, description: 'The outbound proxy, its password masked.' },
  has_secret: { type: 'boolean' },
  secret_hint: STRING_OR_NULL,
  models: STRINGS,
  model_list: { type: ['array', 'null'], items: ANY, description: 'The models the provider listed, when read.' },
  model_list_at: TIME_OR_NULL,
  weight: { type: 'integer' },
  priority: { type: 'integer' },
  state: { type: 'string', enum: ['active', 'disabled', 'needs_sign_in', 'paused'] },
  created_at: TIME,
  updated_at: TIME,
};
export const ACCOUNT_VIEW = object(ACCOUNT_FIELDS);
export const CHANGED_ACCOUNT = object({ ...ACCOUNT_FIELDS, warnings: WARNINGS }, ['warnings']);
export const DELETED_ACCOUNT = object({ ...ACCOUNT_FIELDS, deleted: { type: 'boolean' } });

/** Quota windows, pauses, cooldown, sign-in and recent state changes of an account (quota/account-details.ts). */
const ACCOUNT_DETAILS = {
  quota: object({
    read_at: TIME_OR_NULL,
    source: STRING_OR_NULL,
    error: STRING_OR_NULL,
    windows: {
      type: 'array',
      items: object({
        name: { type: 'string' },
        family: STRING_OR_NULL,
        used_fraction: { type: 'number' },
        left_fraction: { type: 'number' },
        resets_at: TIME_OR_NULL,
        window_seconds: INTEGER_OR_NULL,
        read_at: TIME_OR_NULL,
        source: STRING_OR_NULL,
        forecast_fraction: NUMBER_OR_NULL,
        rate_per_hour: NUMBER_OR_NULL,
      }),
    },
  }),
  pauses: { type: 'array', items: object({ family: STRING_OR_NULL, until: TIME, window: STRING_OR_NULL, reason: { type: 'string' } }) },
  cooldown: nullable(object({ until: TIME, reason: STRING_OR_NULL })),
  sign_in: nullable(object({
    email: STRING_OR_NULL,
    plan: STRING_OR_NULL,
    project_id: STRING_OR_NULL,
    token_expires_at: TIME_OR_NULL,
    refreshed_at: TIME_OR_NULL,
    refresh_failures: { type: 'integer' },
    next_refresh_at: TIME_OR_NULL,
    last_refresh_error: STRING_OR_NULL,
  })),
  state_changes: {
    type: 'array',
    items: object({ from: { type: 'string' }, to: { type: 'string' }, family: STRING_OR_NULL, reason: { type: 'string' }, details: ANY, at: TIME }),
  },
};
export const ACCOUNT_WITH_DETAILS = object({ ...ACCOUNT_FIELDS, ...ACCOUNT_DETAILS });
export const QUOTA_REFRESHED = object({ id: { type: 'string' }, ...ACCOUNT_DETAILS });

/** What to open (code flow) or where to enter a code (device flow) to sign a subscription account in. */
export const SIGN_IN_STARTED = object({
  state: { type: 'string', description: 'Pass to finish.' },
  flow: { type: 'string', enum: ['code', 'device'] },
  provider: { type: 'string', enum: [...PROVIDERS] },
  expires_at: TIME,
  authorize_url: { type: 'string', description: 'Code flow: the address to open and approve.' },
  redirect_uri: { type: 'string', description: 'Code flow.' },
  verification_url: { type: 'string', description: 'Device flow: where to enter user_code.' },
  user_code: { type: 'string', description: 'Device flow.' },
  interval_s: { type: 'integer', description: 'Device flow: call finish no more often than this.' },
  instructions: { type: 'string' },
}, ['authorize_url', 'redirect_uri', 'verification_url', 'user_code', 'interval_s']);

export const SIGNED_IN_ACCOUNT = object({ ...ACCOUNT_FIELDS, signed_in_as: STRING_OR_NULL, plan: STRING_OR_NULL, token_expires_at: TIME });
export const SIGN_IN_PENDING = object({ pending: { type: 'boolean' }, retry_after_s: { type: 'integer' }, message: { type: 'string' } });

const ALIAS_FIELDS = { name: { type: 'string' }, models: STRINGS, created_at: TIME, updated_at: TIME };
export const ALIAS_VIEW = object(ALIAS_FIELDS);
export const CHANGED_ALIAS = object({ ...ALIAS_FIELDS, warnings: WARNINGS }, ['warnings']);
export const DELETED_ALIAS = object({ ...ALIAS_FIELDS, deleted: { type: 'boolean' } });

/** USD per million tokens. */
const PRICE_FIELDS = { input_per_mtok: { type: 'number' }, output_per_mtok: { type: 'number' }, cache_read_per_mtok: { type: 'number' }, cache_write_per_mtok: { type: 'number' } };
const PRICE_ITEM_FIELDS = {
  model: { type: 'string' },
  list: nullable(object(PRICE_FIELDS)),
  override: nullable(object({ ...PRICE_FIELDS, updated_at: TIME })),
  effective: nullable(object({ ...PRICE_FIELDS, source: { type: 'string', enum: ['list', 'override'] }, matched: { type: 'string' } })),
};
export const PRICE_ITEM = object(PRICE_ITEM_FIELDS);
export const CHANGED_PRICE = object({ ...PRICE_ITEM_FIELDS, warnings: WARNINGS }, ['warnings']);
