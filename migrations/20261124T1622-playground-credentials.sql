-- Short-lived playground credentials (docs/panel.md#the-playground-and-key-secrets): the panel never holds a key's
-- secret, so the control plane mints one of these for a key the signed-in person may use; the gateway accepts it as
-- that key until it expires. Stored as SHA-256, like every secret.
CREATE TABLE playground_credentials (
  hash text PRIMARY KEY,
  key_id text NOT NULL REFERENCES gateway_keys(id) ON DELETE CASCADE,
  user_id text REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX playground_credentials_expiry ON playground_credentials (expires_at);
