-- Every node of one database must share SVC_SECRET_KEY (server/secret-key-check.ts): the first node records a check
-- value derived from its key (an HMAC of a fixed text; it reveals nothing of the key), and a node whose key gives
-- another value refuses to start.
CREATE TABLE IF NOT EXISTS secret_key_check (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  key_check text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
