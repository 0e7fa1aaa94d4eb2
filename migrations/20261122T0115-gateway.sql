-- AI gateway storage: gateway keys, provider accounts, model aliases, price overrides, usage records.
--
-- Written by the control plane (/api/v1/keys, /accounts, /aliases, /prices); read by proxy nodes through in-memory
-- caches whose names live in core/ai/cache-names.ts. Every change made by the control plane invalidates the matching
-- cache on every node (ctx.caches.invalidate(name, key?)), so a proxy node never needs to poll these tables.

-- Gateway keys (`sk-svc-…`). The secret is shown once on create and stored only as its SHA-256 hex (hashSecret).
-- A key is usable by the proxy iff deleted_at IS NULL AND NOT disabled. Deleting a key sets deleted_at (the row
-- stays so that usage_records keep a name to show); a deleted key never comes back.
CREATE TABLE gateway_keys (
  id text PRIMARY KEY,                                   -- key_<hex>
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  -- Set when the key was created as "own": it belongs to this user inside the team (visible to that user and the
  -- team's admins). NULL = a team key (visible to every member).
  owner_user_id text REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,                         -- sha256 hex of the full secret
  key_hint text NOT NULL,                                -- e.g. 'sk-svc-…a1b2', safe to show
  -- Models the key may call: exact ids, alias names, or patterns where '*' matches any run of characters
  -- ('claude-*', 'gpt-4o*', '*'). Empty array = every model. Matching is case-sensitive.
  allowed_models text[] NOT NULL DEFAULT '{}',
  -- Per-key limits, all optional (absent = unlimited), enforced by the proxy:
  --   {"requests_per_minute": int, "requests_per_day": int, "tokens_per_month": int, "dollars_per_month": number}
  -- Months are calendar months in UTC. The control plane validates the values before storing them.
  limits jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Whether the proxy keeps request/response bodies of this key's calls, and for how long.
  log_bodies text NOT NULL DEFAULT 'off' CHECK (log_bodies IN ('off', '1d', '7d', '30d')),
  disabled boolean NOT NULL DEFAULT false,
  created_by text REFERENCES users(id) ON DELETE SET NULL,  -- NULL when created with the instance admin token
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  last_used_at timestamptz                               -- updated by the proxy, coarsely (not on every call)
);
CREATE INDEX gateway_keys_team ON gateway_keys (team_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX gateway_keys_owner ON gateway_keys (owner_user_id) WHERE owner_user_id IS NOT NULL;

-- Provider accounts: where the gateway sends calls. Only superusers manage them.
--   provider: anthropic (messages style) | openai (chat-completions style) | gemini (generative-language style)
--             | openai-compatible (chat-completions style at base_url, which is then required)
--   kind:     api_key (an official key) | subscription (a plan signed in with OAuth; later feature)
-- The proxy may use an account iff state = 'active'.
CREATE TABLE provider_accounts (
  id text PRIMARY KEY,                                   -- acc_<hex>
  name text NOT NULL UNIQUE,
  provider text NOT NULL CHECK (provider IN ('anthropic', 'openai', 'gemini', 'openai-compatible')),
  kind text NOT NULL CHECK (kind IN ('api_key', 'subscription')),
  -- NULL = the provider's official endpoint. Stored without a trailing slash, e.g. 'https://api.deepseek.com/v1'
  -- (for openai-compatible: the URL that /chat/completions and /models are appended to).
  base_url text,
  -- Outbound HTTP(S) proxy for this account's calls (undici ProxyAgent), e.g. 'http://user:pass@10.0.0.5:3128'.
  proxy_url text,
  -- The credential sealed with core/secret-box (seal(ctx.secretKey, apiKey)); open(ctx.secretKey, secret_sealed)
  -- gives the API key. NULL only for a subscription account that is not signed in yet. Never sent by the API.
  secret_sealed text,
  secret_hint text,                                      -- e.g. 'sk-ant…abcd', safe to show
  -- Models this account serves: exact ids or '*' patterns. Empty array = the provider's model list
  -- (model_list below, or any model when no list was fetched yet).
  models text[] NOT NULL DEFAULT '{}',
  -- The provider's model ids as last fetched from its /models endpoint: a JSON array of strings; NULL = never fetched.
  model_list jsonb,
  model_list_at timestamptz,
  -- Round-robin share among accounts of the same priority that serve a model (1..1000).
  weight int NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 1000),
  -- Higher priority serves first; accounts of a lower priority are used only when no account of a higher priority
  -- is available (all failing, cooling down or paused). Range -1000..1000.
  priority int NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000 AND 1000),
  -- active: in rotation. disabled: switched off by an administrator. needs_sign_in: a subscription whose sign-in
  -- expired or was revoked. paused: taken out of rotation by the gateway itself (e.g. quota spent).
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled', 'needs_sign_in', 'paused')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provider_accounts_created ON provider_accounts (created_at DESC, id DESC);

-- Model aliases: a name a client may ask for that expands to an ordered list of model ids (1..10; no alias names
-- inside, so no cycles). The proxy tries them in order while the current one answers 429, 404 or 5xx (or the
-- connection fails) and nothing has been sent to the client yet.
CREATE TABLE model_aliases (
  name text PRIMARY KEY,
  models text[] NOT NULL CHECK (cardinality(models) BETWEEN 1 AND 10),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The instance's price overrides in USD per million tokens; they win over the list prices in core/ai/list-prices.ts.
-- `model` is an exact model id or a '*' pattern. Read them with priceOf(model, overrides) from core/ai/price-of.ts
-- rather than interpreting the rows directly.
CREATE TABLE model_prices (
  model text PRIMARY KEY,
  input_per_mtok double precision NOT NULL CHECK (input_per_mtok >= 0),
  output_per_mtok double precision NOT NULL CHECK (output_per_mtok >= 0),
  cache_read_per_mtok double precision NOT NULL CHECK (cache_read_per_mtok >= 0),
  cache_write_per_mtok double precision NOT NULL CHECK (cache_write_per_mtok >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per gateway call (written by the proxy in batches). Token figures come with usage_source:
--   reported = the upstream said so; estimated = counted locally with tiktoken; unknown = neither was possible
--   (the token columns are then 0 and must not be read as "free").
-- input_tokens excludes cache reads and cache writes (Anthropic's convention); cache_read_tokens and
-- cache_write_tokens are the prompt tokens read from / written to the provider's prompt cache.
-- No foreign keys on purpose: rows outlive keys and accounts, and inserts stay cheap.
-- Scale plan: partition by range on `at` (one partition per month, created ahead by a scheduler; retention drops
-- old partitions). A plain table is enough for now; the indexes below carry over to partitions unchanged.
CREATE TABLE usage_records (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,                               -- when the call started
  key_id text NOT NULL,
  team_id text NOT NULL,
  model text NOT NULL,                                   -- as asked by the client (may be an alias)
  served_model text,                                     -- the model that answered; NULL when refused before upstream
  alias text,                                            -- the alias the client asked for, when it was one
  provider text,
  account_id text,
  client_style text NOT NULL,                            -- chat | messages | generative
  upstream_style text,                                   -- chat | messages | generative | responses
  status int NOT NULL,                                   -- HTTP status sent to the client
  error_code text,                                       -- stable code when status >= 400 or the stream ended in error
  input_tokens int NOT NULL DEFAULT 0,
  output_tokens int NOT NULL DEFAULT 0,
  cache_read_tokens int NOT NULL DEFAULT 0,
  cache_write_tokens int NOT NULL DEFAULT 0,
  reasoning_tokens int,                                  -- part of output_tokens; NULL when not reported
  usage_source text NOT NULL CHECK (usage_source IN ('reported', 'estimated', 'unknown')),
  latency_ms int NOT NULL,                               -- until the last byte
  ttfb_ms int,                                           -- until the first byte to the client
  cost_usd double precision NOT NULL DEFAULT 0,          -- costOf(usage, priceOf(served_model, overrides))
  stream boolean NOT NULL DEFAULT false
);
CREATE INDEX usage_records_key_at ON usage_records (key_id, at);
CREATE INDEX usage_records_team_at ON usage_records (team_id, at);
CREATE INDEX usage_records_at ON usage_records (at);
