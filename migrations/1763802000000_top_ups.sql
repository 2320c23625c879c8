-- Up Migration

-- Live top-ups paid through Stripe Checkout. The balance is credited once, when the row leaves
-- `pending`/`failed`/`expired` for `succeeded` under its row lock, in the transaction that writes the
-- ledger entry; `ledger_entry_id` names that entry.
CREATE TABLE billing_top_ups (
  id                 text PRIMARY KEY,
  org_id             text NOT NULL REFERENCES organizations (id),
  livemode           boolean NOT NULL,
  amount             bigint NOT NULL CHECK (amount > 0),
  currency           text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'expired')),
  stripe_session_id  text,
  checkout_url       text,
  ledger_entry_id    text REFERENCES billing_transactions (id),
  actor_user_id      text,
  actor_key_id       text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  completed_at       timestamptz,
  CHECK ((status = 'succeeded') = (ledger_entry_id IS NOT NULL))
);
CREATE INDEX billing_top_ups_org_idx ON billing_top_ups (org_id, livemode, created_at DESC, id DESC);

-- Down Migration
DROP TABLE billing_top_ups;
