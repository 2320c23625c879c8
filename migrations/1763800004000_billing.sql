-- Up Migration

-- Money is integer minor units (cents) of `currency`; USD only for now. Test mode and live mode keep
-- separate balances: one row per (organisation, mode), created at its first movement.
CREATE TABLE billing_balances (
  org_id      text NOT NULL REFERENCES organizations (id),
  livemode    boolean NOT NULL,
  currency    text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
  -- Spendable now.
  available   bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
  -- Held for operations in progress; captured on success, returned to `available` on failure.
  reserved    bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, livemode)
);

-- At most one reservation per operation, whatever retries happen: the operation id is the key.
CREATE TABLE billing_reservations (
  operation_id  text PRIMARY KEY,
  org_id        text NOT NULL,
  livemode      boolean NOT NULL,
  amount        bigint NOT NULL CHECK (amount > 0),
  currency      text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
  state         text NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'captured', 'released')),
  description   text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  settled_at    timestamptz,
  CHECK ((state = 'reserved') = (settled_at IS NULL)),
  FOREIGN KEY (org_id, livemode) REFERENCES billing_balances (org_id, livemode)
);
CREATE INDEX billing_reservations_org_idx ON billing_reservations (org_id, livemode, state);

-- The ledger: one entry per movement, never changed or removed. `seq` is the posting order (entries
-- of one balance are written under its row lock), and the `*_after` columns are the balance after
-- the entry. `amount` is always positive; `type` says which way it moved.
CREATE TABLE billing_transactions (
  id               text PRIMARY KEY,
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  org_id           text NOT NULL,
  livemode         boolean NOT NULL,
  type             text NOT NULL CHECK (type IN ('top_up', 'reservation', 'capture', 'release')),
  amount           bigint NOT NULL CHECK (amount > 0),
  currency         text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
  operation_id     text REFERENCES billing_reservations (operation_id),
  description      text NOT NULL,
  available_after  bigint NOT NULL CHECK (available_after >= 0),
  reserved_after   bigint NOT NULL CHECK (reserved_after >= 0),
  actor_user_id    text,
  actor_key_id     text,
  request_id       text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK ((type = 'top_up') = (operation_id IS NULL)),
  FOREIGN KEY (org_id, livemode) REFERENCES billing_balances (org_id, livemode)
);
CREATE INDEX billing_transactions_org_idx ON billing_transactions (org_id, livemode, seq DESC);
-- The database itself refuses a second reservation, capture or release entry for one operation.
CREATE UNIQUE INDEX billing_transactions_operation_idx ON billing_transactions (operation_id, type)
  WHERE operation_id IS NOT NULL;

CREATE FUNCTION billing_transactions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'billing_transactions is append-only: % refused', TG_OP;
END
$$;
CREATE TRIGGER billing_transactions_no_update_or_delete BEFORE UPDATE OR DELETE ON billing_transactions
  FOR EACH ROW EXECUTE FUNCTION billing_transactions_append_only();
CREATE TRIGGER billing_transactions_no_truncate BEFORE TRUNCATE ON billing_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION billing_transactions_append_only();

-- Down Migration
DROP TABLE billing_transactions;
DROP FUNCTION billing_transactions_append_only();
DROP TABLE billing_reservations;
DROP TABLE billing_balances;
