-- Stored responses of the responses endpoint (docs/gateway.md, "Stored responses"): what a call with store: true
-- sent and got, per gateway key, so that previous_response_id, item_reference and GET /v1/responses/{id} work on
-- every node and every upstream style. Kept for the key's response_store_ttl; expired rows stay a week so that a
-- reference to one can say it expired, then the expiry job deletes them.

-- 'off', or a number of days from 1 to 30.
ALTER TABLE gateway_keys ADD COLUMN response_store_ttl text NOT NULL DEFAULT '1d'
  CHECK (response_store_ttl ~ '^(off|([1-9]|[12][0-9]|30)d)$');

CREATE TABLE stored_responses (
  key_id text NOT NULL REFERENCES gateway_keys(id) ON DELETE CASCADE,
  -- The response id the client saw (resp_…). Per key: one key can never reach, nor overwrite, another's.
  id text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- The whole input of the call: earlier stored items it referred to are expanded into it.
  input jsonb NOT NULL,
  -- The Response object as the client received it (its output items included).
  response jsonb NOT NULL,
  -- Ids of the input and output items, for item_reference.
  item_ids text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (key_id, id)
);
CREATE INDEX stored_responses_items ON stored_responses USING gin (item_ids);
CREATE INDEX stored_responses_expiry ON stored_responses (expires_at);
