-- Up Migration

-- Monthly spending limits: per organisation and mode on its balance row (locked by every reservation,
-- so the limit is checked under the same lock as the money), and per API key.
ALTER TABLE billing_balances ADD COLUMN monthly_spend_limit bigint CHECK (monthly_spend_limit >= 0);
ALTER TABLE api_keys ADD COLUMN monthly_spend_limit bigint CHECK (monthly_spend_limit >= 0);

-- Which API key asked for the operation a reservation pays for (null: a session or the system), so a
-- key's month of spending can be added up.
ALTER TABLE billing_reservations ADD COLUMN api_key_id text;
CREATE INDEX billing_reservations_month_idx ON billing_reservations (org_id, livemode, created_at);
CREATE INDEX billing_reservations_key_month_idx ON billing_reservations (api_key_id, created_at) WHERE api_key_id IS NOT NULL;

-- Down Migration
DROP INDEX billing_reservations_key_month_idx;
DROP INDEX billing_reservations_month_idx;
ALTER TABLE billing_reservations DROP COLUMN api_key_id;
ALTER TABLE api_keys DROP COLUMN monthly_spend_limit;
ALTER TABLE billing_balances DROP COLUMN monthly_spend_limit;
