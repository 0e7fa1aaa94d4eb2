-- Access tokens (docs/identity.md): signing keys, sign-in sessions with rotating refresh tokens, device
-- authorizations (RFC 8628), trust rules for CI token exchange (RFC 8693) and the exchanges made through them.

-- One key per generation; two nodes rotating at once insert the same generation and one of them wins.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  generation integer NOT NULL UNIQUE,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  -- The private JWK, sealed with SVC_SECRET_KEY (core/secret-box.ts).
  private_sealed text NOT NULL,
  -- Published in the JWKS at once, signs from active_from (so every node knows it before the first token).
  active_from timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

-- A sign-in of the command-line client (the sid claim of its access tokens).
CREATE TABLE auth_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('read', 'deploy', 'write')),
  client_name text NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text,
  created_at timestamptz NOT NULL
);
CREATE INDEX auth_sessions_user ON auth_sessions (user_id);

-- Single use: used_at is set by the exchange that consumed it; presenting it again revokes the session.
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL REFERENCES auth_sessions(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

CREATE TABLE device_authorizations (
  device_code_hash text PRIMARY KEY,
  user_code text NOT NULL UNIQUE,
  client_name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('read', 'deploy', 'write')),
  expires_at timestamptz NOT NULL,
  last_polled_at timestamptz,
  approved_by text REFERENCES users(id) ON DELETE CASCADE,
  denied_at timestamptz,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL
);

CREATE TABLE trust_rules (
  id text PRIMARY KEY,
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name text NOT NULL,
  issuer text NOT NULL,
  audience text NOT NULL,
  -- {"claim": "exact value or glob"}; at least one owner-binding claim is exact (trust-conditions.ts).
  conditions jsonb NOT NULL,
  scope text NOT NULL CHECK (scope IN ('read', 'deploy')),
  ttl_seconds integer NOT NULL CHECK (ttl_seconds BETWEEN 60 AND 900),
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX trust_rules_team ON trust_rules (team_id, created_at DESC, id DESC);

-- Every exchange; a job token's jti is accepted once per issuer.
CREATE TABLE trust_exchanges (
  id text PRIMARY KEY,
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  rule_id text NOT NULL REFERENCES trust_rules(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  subject text NOT NULL,
  job_jti text NOT NULL,
  -- The claims the rule's conditions matched, as the job token carried them.
  claims jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (issuer, job_jti)
);
CREATE INDEX trust_exchanges_team ON trust_exchanges (team_id, created_at DESC, id DESC);
