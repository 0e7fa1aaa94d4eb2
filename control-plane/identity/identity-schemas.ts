/** Response schemas of the identity routes: users, API tokens, sign-in, device sign-in (views of user-service.ts, token-service.ts). */
import { SCOPES } from '../../core/auth/principal.ts';
import { object, STRING_OR_NULL, TIME, TIME_OR_NULL } from '../../core/http/response-schema.ts';

const SCOPE = { type: 'string', enum: [...SCOPES] };

export const USER_VIEW = object({
  id: { type: 'string' },
  username: { type: 'string' },
  email: STRING_OR_NULL,
  is_superuser: { type: 'boolean' },
  created_at: TIME,
});

/** The calling user; the admin token is a user of its own with id null and no e-mail. */
export const ME_VIEW = object({
  id: STRING_OR_NULL,
  username: { type: 'string' },
  email: STRING_OR_NULL,
  is_superuser: { type: 'boolean' },
  created_at: TIME,
  scope: SCOPE,
  teams: { type: 'array', items: object({ id: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } }) },
}, ['email', 'created_at']);

const TOKEN_FIELDS = {
  id: { type: 'string' },
  user: { type: 'string' },
  name: { type: 'string' },
  scope: SCOPE,
  hint: { type: 'string' },
  expires_at: TIME_OR_NULL,
  revoked_at: TIME_OR_NULL,
  last_used_at: TIME_OR_NULL,
  created_at: TIME,
};
export const TOKEN_VIEW = object(TOKEN_FIELDS);

/** A created token: its secret is in this answer only. */
export const CREATED_TOKEN = object({ ...TOKEN_FIELDS, token: { type: 'string', description: 'The tk_ secret, shown once.' } });

const DEVICE_FIELDS = {
  user_code: { type: 'string' },
  client_name: { type: 'string' },
  scope: SCOPE,
  expires_at: TIME,
};
export const DEVICE_VIEW = object(DEVICE_FIELDS);
export const DEVICE_DECISION = object({ approved: { type: 'boolean' }, ...DEVICE_FIELDS });

export const SESSION_VIEW = object({
  id: { type: 'string' },
  client_name: { type: 'string' },
  scope: SCOPE,
  current: { type: 'boolean', description: 'The session of the access token making this request.' },
  created_at: TIME,
  last_refreshed_at: TIME_OR_NULL,
  expires_at: TIME,
});

const TRUST_RULE_FIELDS = {
  id: { type: 'string' },
  team: { type: 'string' },
  name: { type: 'string' },
  issuer: { type: 'string' },
  audience: { type: 'string' },
  conditions: { type: 'object', additionalProperties: true, description: 'Claim → exact value or glob.' },
  scope: { type: 'string', enum: ['read', 'deploy'] },
  ttl: { type: 'integer', description: 'Seconds the access tokens last.' },
  created_by: STRING_OR_NULL,
  disabled: { type: 'boolean', description: 'Its creator no longer has a role in the team that allows its scope: exchanges are refused.' },
  created_at: TIME,
};
export const TRUST_RULE_VIEW = object(TRUST_RULE_FIELDS);

export const TRUST_EXCHANGE_VIEW = object({
  id: { type: 'string' },
  team: { type: 'string' },
  rule: { type: 'string' },
  issuer: { type: 'string' },
  subject: { type: 'string' },
  claims: { type: 'object', additionalProperties: true, description: 'The claims of the job token that matched.' },
  token_id: { type: 'string' },
  expires_at: TIME,
  created_at: TIME,
});
