-- Subscription accounts (plans signed in with OAuth): tokens, sign-ins under way, quota windows, pauses and the
-- history of account state changes. provider_accounts (20261122T0115-gateway.sql) keeps the account itself; these
-- tables hang off it and disappear with it. Written by the control plane (sign-in, quota poller, resume job) and by
-- proxy nodes (token refresh, needs_sign_in on a refused token); read through core/ai/subscriptions/.

-- The OAuth tokens of a subscription account, sealed with core/secret-box. `version` grows by one on every write:
-- a refresh writes only when the version is still the one it read (compare-and-set), so a rotated refresh token
-- is never overwritten by an older one, even if two nodes ever raced past the refresh lock.
CREATE TABLE account_oauth_tokens (
  account_id text PRIMARY KEY REFERENCES provider_accounts(id) ON DELETE CASCADE,
  access_sealed text NOT NULL,
  refresh_sealed text,                                   -- NULL when the provider gave none (then no refresh)
  expires_at timestamptz NOT NULL,                       -- when the access token stops working
  scopes text,
  -- What the sign-in told about the account, never a secret: {"email", "plan", "chatgpt_account_id", "project_id"}.
  meta jsonb NOT NULL DEFAULT '{}'::jsonb,
  version int NOT NULL DEFAULT 1,
  refreshed_at timestamptz,
  -- A provider outage during refresh: the old token is kept until it expires and the refresh is retried with
  -- exponential backoff; these say when and why.
  refresh_failures int NOT NULL DEFAULT 0,
  next_refresh_at timestamptz,
  last_refresh_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Sign-ins under way (POST /api/v1/accounts/oauth/start → /finish). `state` is the OAuth state parameter (random,
-- also the row's key); the PKCE verifier is sealed. A row is used once (used_at) and expires after 15 minutes.
CREATE TABLE oauth_sign_ins (
  state text PRIMARY KEY,
  provider text NOT NULL,
  flow text NOT NULL CHECK (flow IN ('code', 'device')),
  verifier_sealed text,                                  -- code flow: the PKCE verifier
  redirect_uri text,
  device_auth_sealed text,                               -- device flow: the provider's device auth id
  user_code text,                                        -- device flow: the code the person types
  poll_interval_s int,
  -- The account to create (name, proxy_url, models, weight, priority, project_id) or to sign in again (account_id).
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  account_id text REFERENCES provider_accounts(id) ON DELETE CASCADE,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_sign_ins_expires ON oauth_sign_ins (expires_at);

-- Quota windows as last read (usage endpoint, or the rate-limit headers of recent responses). used_fraction is 0..1
-- (may exceed 1 when the provider says so); family names the model family a window limits (e.g. 'sonnet'), NULL
-- for the whole account. forecast_fraction = the used fraction expected at resets_at at the recent rate.
CREATE TABLE account_quota_windows (
  account_id text NOT NULL REFERENCES provider_accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  family text,
  used_fraction double precision NOT NULL,
  resets_at timestamptz,
  window_seconds int,
  read_at timestamptz NOT NULL,
  source text NOT NULL CHECK (source IN ('usage_endpoint', 'headers')),
  forecast_fraction double precision,
  rate_per_hour double precision,                        -- fraction of the window used per hour, recently
  PRIMARY KEY (account_id, name)
);

-- Recent readings of each window, for the rate behind the forecast (kept for a day).
CREATE TABLE account_quota_samples (
  account_id text NOT NULL REFERENCES provider_accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  used_fraction double precision NOT NULL,
  resets_at timestamptz,
  at timestamptz NOT NULL
);
CREATE INDEX account_quota_samples_at ON account_quota_samples (account_id, name, at);

-- The quota status of each account's last read: where the windows came from and why the usage endpoint was not
-- used (403, unexpected shape, unreachable), so that an operator sees it in GET /api/v1/accounts/{id}.
CREATE TABLE account_quota_status (
  account_id text PRIMARY KEY REFERENCES provider_accounts(id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL,
  source text,                                           -- usage_endpoint | headers | NULL (nothing known)
  error text
);

-- Pauses set by the gateway because a quota window has under 2 % left: until the window resets. family '' pauses the
-- whole account (provider_accounts.state = 'paused' while it lasts); another value pauses only that model family.
CREATE TABLE account_pauses (
  account_id text NOT NULL REFERENCES provider_accounts(id) ON DELETE CASCADE,
  family text NOT NULL DEFAULT '',
  until timestamptz NOT NULL,
  window_name text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, family)
);
CREATE INDEX account_pauses_until ON account_pauses (until);

-- Every state change of an account made by the gateway or a sign-in (not administrators' PATCHes): paused, resumed,
-- needs_sign_in, signed in again, and per-family pauses (family set, states unchanged).
CREATE TABLE account_state_changes (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES provider_accounts(id) ON DELETE CASCADE,
  from_state text NOT NULL,
  to_state text NOT NULL,
  family text,
  reason text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  at timestamptz NOT NULL
);
CREATE INDEX account_state_changes_account ON account_state_changes (account_id, id DESC);
