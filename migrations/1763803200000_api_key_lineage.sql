-- Up Migration

-- The key that created a key (null: its owner's session created it) and the chain of keys from the
-- root down to the key itself. A monthly_spend_limit binds the spending of every key in the chains
-- below it, deleted keys included, so creating a child, spending with it and deleting it cannot
-- multiply a budget (src/services/billing/ledger.ts).
ALTER TABLE api_keys ADD COLUMN parent_key_id text REFERENCES api_keys (id);
ALTER TABLE api_keys ADD COLUMN lineage text[];

-- Keys made before this recorded the key that created them only in their creation's audit event.
UPDATE api_keys k SET parent_key_id = e.actor_key_id
FROM audit_events e JOIN api_keys p ON p.id = e.actor_key_id
WHERE e.action = 'api_key.created' AND e.target_type = 'api_key' AND e.target_id = k.id AND p.id <> k.id;

WITH RECURSIVE chain (id, lineage) AS (
  SELECT id, ARRAY[id] FROM api_keys WHERE parent_key_id IS NULL
  UNION ALL
  SELECT k.id, chain.lineage || k.id FROM api_keys k JOIN chain ON k.parent_key_id = chain.id
)
UPDATE api_keys k SET lineage = chain.lineage FROM chain WHERE chain.id = k.id;

ALTER TABLE api_keys ALTER COLUMN lineage SET NOT NULL;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_lineage_ends_with_key CHECK (lineage[cardinality(lineage)] = id);
-- A reservation locks and sums its key's whole tree, found by the tree's root.
CREATE INDEX api_keys_root_idx ON api_keys ((lineage[1]));

-- Down Migration
DROP INDEX api_keys_root_idx;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_lineage_ends_with_key;
ALTER TABLE api_keys DROP COLUMN lineage;
ALTER TABLE api_keys DROP COLUMN parent_key_id;
