-- Up Migration

-- What we sell, per TLD, in integer cents (USD): the price list for availability answers and charges.
CREATE TABLE tld_prices (
  tld             text PRIMARY KEY,
  register_price  integer NOT NULL CHECK (register_price > 0),
  renew_price     integer NOT NULL CHECK (renew_price > 0),
  transfer_price  integer NOT NULL CHECK (transfer_price > 0),
  currency        text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
  enabled         boolean NOT NULL DEFAULT true,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

INSERT INTO tld_prices (tld, register_price, renew_price, transfer_price) VALUES
  ('com',   1299, 1299, 1299),
  ('net',   1499, 1499, 1499),
  ('org',   1399, 1399, 1399),
  ('io',    3999, 3999, 3999),
  ('dev',   1599, 1599, 1599),
  ('app',   1799, 1799, 1799),
  ('co',    2599, 2599, 2599),
  ('xyz',   1199, 1399, 1199),
  ('de',     899,  899,  899),
  ('jp',    3499, 3499, 3499),
  ('co.uk',  999,  999,  999);

-- Down Migration
DROP TABLE tld_prices;
