import type { Db } from '../../src/db/pool.js';

/**
 * Where a table's rows belong to one user: a condition on its rows, with `$1` the user's id. Derived
 * from the schema, so a new table is covered the day its migration runs: `users` is the user's row,
 * `organizations` its organisations (through `memberships`); any other table belongs through a column
 * naming one of them (`org_id`, `user_id`, or a foreign key to either) or a foreign key to a table that
 * belongs, at any depth (`domain_contacts` through `contacts`, `webhook_deliveries` through
 * `webhook_endpoints`).
 */
export interface OwnedTable {
  table: string;
  scope: string;
  versioned: boolean;
}

interface ForeignKey {
  table: string;
  columns: string[];
  references: string;
  referenced: string[];
}

/** Tables the fuzz may write on a 4xx: a stored idempotency answer is what an `Idempotency-Key` is for. */
const WRITTEN_ON_PURPOSE = new Set(['idempotency_keys']);

export async function ownedTables(db: Db): Promise<{ owned: OwnedTable[]; unowned: string[] }> {
  const columns = await db.query<{ table_name: string; columns: string[] }>(
    `SELECT table_name, array_agg(column_name::text) AS columns FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE table_schema = 'public' AND t.table_type = 'BASE TABLE' GROUP BY table_name ORDER BY table_name`,
  );
  const keys = await db.query<ForeignKey>(
    `SELECT conrelid::regclass::text AS table, confrelid::regclass::text AS references,
            array(SELECT attname::text FROM unnest(conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute ON attrelid = conrelid AND attnum = n ORDER BY i) AS columns,
            array(SELECT attname::text FROM unnest(confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute ON attrelid = confrelid AND attnum = n ORDER BY i) AS referenced
       FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
  );
  const orgs = `(SELECT org_id FROM memberships WHERE user_id = $1)`;
  const scopes = new Map<string, string>([
    ['users', 'id = $1'],
    ['organizations', `id IN ${orgs}`],
  ]);
  const tables = columns.rows.filter((t) => !WRITTEN_ON_PURPOSE.has(t.table_name));
  // Breadth first: a table's condition uses only tables that belonged at an earlier step, so the
  // conditions nest as deep as the shortest chain of foreign keys and never loop.
  for (let changed = true; changed; ) {
    changed = false;
    const known = new Map(scopes);
    for (const { table_name: table, columns: names } of tables) {
      if (known.has(table)) continue;
      const conditions = new Set<string>();
      if (names.includes('org_id')) conditions.add(`org_id IN ${orgs}`);
      if (names.includes('user_id')) conditions.add('user_id = $1');
      for (const key of keys.rows.filter((k) => k.table === table && k.references !== table && known.has(k.references))) {
        const list = (cols: string[]) => (cols.length === 1 ? cols[0]! : `(${cols.join(', ')})`);
        conditions.add(`${list(key.columns)} IN (SELECT ${key.referenced.join(', ')} FROM ${key.references} WHERE ${known.get(key.references)})`);
      }
      if (conditions.size === 0) continue;
      scopes.set(table, [...conditions].map((c) => `(${c})`).join(' OR '));
      changed = true;
    }
  }
  const owned = tables.flatMap(({ table_name: table, columns: names }) => {
    const scope = scopes.get(table);
    return scope ? [{ table, scope, versioned: names.includes('version') }] : [];
  });
  return { owned, unowned: tables.map((t) => t.table_name).filter((t) => !scopes.has(t)) };
}

/**
 * A function answering, for the user, each owned table's count of the user's rows and, where the
 * table has a `version`, its sum: a write on any of them, insert, delete or versioned update, changes it.
 */
export function fingerprintOf(db: Db, owned: OwnedTable[], userId: string): () => Promise<string> {
  const parts = owned.map(
    ({ table, scope, versioned }) => `(SELECT '${table}:' || count(*)${versioned ? ` || '/' || coalesce(sum(version), 0)` : ''} FROM ${table} WHERE ${scope})`,
  );
  const sql = `SELECT concat_ws(' ', ${parts.join(', ')}) AS print`;
  return async () => (await db.query<{ print: string }>(sql, [userId])).rows[0]!.print;
}
