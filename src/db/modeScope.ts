import type { Queryable } from './pool.js';
import { SqlParams } from './sqlParams.js';

/**
 * Test mode and live mode never see each other's objects. Every table with a `livemode` column is
 * read and written only through a ModeScopedTable: `$1` is always the caller's mode and every
 * statement it builds filters or stamps on it, so forgetting the condition is not possible.
 */
export interface Mode {
  readonly livemode: boolean;
  /** Only modeOf makes a Mode, so a Principal or a row with a `livemode` column is not one by accident. */
  readonly [modeBrand]: true;
}

declare const modeBrand: unique symbol;

/** The one way to make a Mode: from the caller's livemode, once, where the caller is known. */
export function modeOf(livemode: boolean): Mode {
  return { livemode } as Mode;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function assertConditionFree(where: string): void {
  if (/\$1(?!\d)/.test(where)) throw new Error('mode-scoped queries reserve $1 for livemode; number your parameters from $2');
}

function assertIdentifiers(names: string[]): void {
  for (const name of names) {
    if (!IDENTIFIER.test(name)) throw new Error(`not a column name: ${name}`);
    if (name === 'livemode') throw new Error('livemode is set from the caller’s mode, never from input');
  }
}

/** Parameters for a statement of a ModeScopedTable built in code: they number from `$2`. */
export function modeScopedParams(): SqlParams {
  return new SqlParams(1);
}

/** Assignments an UPDATE computes in SQL rather than taking as values. */
export interface ComputedAssignments {
  /** Integer columns raised by one, e.g. an optimistic-concurrency `version`. */
  increment?: string[];
  /** Columns set to the transaction time, e.g. `updated_at`. */
  now?: string[];
  /** Integer columns raised by a whole number, e.g. a test clock's offset in days. */
  add?: Record<string, number>;
}

export class ModeScopedTable<Row> {
  /** `columns` is the SELECT/RETURNING list, e.g. `id, name, created_at AS "createdAt"`. */
  constructor(
    readonly table: string,
    private readonly columns: string,
  ) {
    assertIdentifiers([table]);
  }

  /** Rows of this mode matching `where` (parameters from `$2`). */
  async select(db: Queryable, mode: Mode, where: string, params: unknown[], tail = ''): Promise<Row[]> {
    assertConditionFree(where);
    const { rows } = await db.query(
      `SELECT ${this.columns} FROM ${this.table} WHERE livemode = $1 AND (${where}) ${tail}`,
      [mode.livemode, ...params],
    );
    return rows as Row[];
  }

  /** How many rows of this mode match `where` (parameters from `$2`). */
  async count(db: Queryable, mode: Mode, where: string, params: unknown[]): Promise<number> {
    assertConditionFree(where);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE livemode = $1 AND (${where})`, [mode.livemode, ...params]);
    return rows[0]!.n;
  }

  /**
   * Rows of this mode matching `where`, `batch` at a time through a server-side cursor, so a large set
   * (a zone's records) is never in memory whole. `client` must be in a transaction: the cursor lives
   * until it ends, and every batch comes from that transaction's snapshot.
   */
  async *selectInBatches(client: Queryable, mode: Mode, where: string, params: unknown[], tail: string, batch: number): AsyncGenerator<Row[]> {
    assertConditionFree(where);
    if (!Number.isSafeInteger(batch) || batch < 1) throw new Error('a batch is a positive whole number of rows');
    const cursor = `${this.table}_batches`;
    await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${this.columns} FROM ${this.table} WHERE livemode = $1 AND (${where}) ${tail}`, [
      mode.livemode,
      ...params,
    ]);
    for (;;) {
      const { rows } = await client.query(`FETCH ${batch} FROM ${cursor}`);
      if (rows.length > 0) yield rows as Row[];
      if (rows.length < batch) break;
    }
    await client.query(`CLOSE ${cursor}`);
  }

  /** The latest value of a time column over the rows of this mode matching `where`; undefined when none match. */
  async latest(db: Queryable, mode: Mode, column: string, where: string, params: unknown[]): Promise<Date | undefined> {
    assertConditionFree(where);
    assertIdentifiers([column]);
    const { rows } = await db.query<{ latest: Date | null }>(`SELECT max(${column}) AS latest FROM ${this.table} WHERE livemode = $1 AND (${where})`, [
      mode.livemode,
      ...params,
    ]);
    return rows[0]?.latest ?? undefined;
  }

  async findOne(db: Queryable, mode: Mode, where: string, params: unknown[]): Promise<Row | undefined> {
    return (await this.select(db, mode, where, params, 'LIMIT 1'))[0];
  }

  /** Inserts a row stamped with the caller's mode. */
  async insert(db: Queryable, mode: Mode, values: Record<string, unknown>): Promise<Row> {
    return (await this.insertRow(db, mode, values, ''))!;
  }

  /**
   * Inserts a row stamped with the caller's mode unless it would violate a unique constraint
   * (`ON CONFLICT DO NOTHING`); undefined when a row was already there.
   */
  insertIfAbsent(db: Queryable, mode: Mode, values: Record<string, unknown>): Promise<Row | undefined> {
    return this.insertRow(db, mode, values, 'ON CONFLICT DO NOTHING');
  }

  /**
   * Many rows, each stamped with the caller's mode, in one statement however many there are: each
   * column's values go as one array parameter, typed by `types` (`text`, `int`, ...), and `unnest`
   * makes them rows again. Answers how many were inserted and the transaction's time, which stamps
   * every column defaulting to `now()`, rather than the rows: reading thousands back was a third of
   * the statement's time, and the caller has their values. (A parameter per value, 500 rows a
   * statement, took PostgreSQL's parser and pg's serializer most of a large import's write.)
   */
  async insertMany(db: Queryable, mode: Mode, types: Record<string, string>, values: Record<string, unknown>[]): Promise<{ count: number; at: Date }> {
    const names = Object.keys(types);
    assertIdentifiers(names);
    if (!Object.values(types).every((type) => IDENTIFIER.test(type))) throw new Error('a column type is a plain name: text, int, boolean, ...');
    const p = modeScopedParams();
    const arrays = names.map((name) => `${p.add(values.map((row) => row[name] ?? null))}::${types[name]}[]`);
    const { rows } = await db.query<{ count: number; at: Date }>(
      `WITH inserted AS (
         INSERT INTO ${this.table} (livemode, ${names.join(', ')}) SELECT $1::boolean, ${names.join(', ')} FROM unnest(${arrays.join(', ')}) AS v(${names.join(', ')}) RETURNING 1
       )
       SELECT count(*)::int AS count, now() AS at FROM inserted`,
      [mode.livemode, ...p.values],
    );
    return rows[0]!;
  }

  private async insertRow(db: Queryable, mode: Mode, values: Record<string, unknown>, onConflict: string): Promise<Row | undefined> {
    const names = Object.keys(values);
    assertIdentifiers(names);
    const p = modeScopedParams();
    const placeholders = names.map((name) => p.add(values[name]));
    const { rows } = await db.query(
      `INSERT INTO ${this.table} (livemode, ${names.join(', ')}) VALUES ($1, ${placeholders.join(', ')})
       ${onConflict} RETURNING ${this.columns}`,
      [mode.livemode, ...p.values],
    );
    return rows[0] as Row | undefined;
  }

  /**
   * Updates rows of this mode matching `where`; `set` values follow the `where` parameters.
   * `computed` adds assignments the database works out itself (a version bump, a timestamp).
   */
  async update(
    db: Queryable,
    mode: Mode,
    where: string,
    params: unknown[],
    set: Record<string, unknown>,
    computed: ComputedAssignments = {},
  ): Promise<Row[]> {
    assertConditionFree(where);
    const names = Object.keys(set);
    const increment = computed.increment ?? [];
    const now = computed.now ?? [];
    const add = Object.entries(computed.add ?? {});
    assertIdentifiers([...names, ...increment, ...now, ...add.map(([name]) => name)]);
    for (const [name, amount] of add) if (!Number.isSafeInteger(amount)) throw new Error(`not a whole number to add to ${name}`);
    // The values follow $1 (the mode) and the `where` parameters.
    const values = new SqlParams(1 + params.length);
    const assignments = [
      ...names.map((name) => `${name} = ${values.add(set[name])}`),
      ...increment.map((name) => `${name} = ${name} + 1`),
      ...now.map((name) => `${name} = now()`),
      ...add.map(([name, amount]) => `${name} = ${name} + ${values.add(amount)}::int`),
    ];
    const { rows } = await db.query(
      `UPDATE ${this.table} SET ${assignments.join(', ')} WHERE livemode = $1 AND (${where}) RETURNING ${this.columns}`,
      [mode.livemode, ...params, ...values.values],
    );
    return rows as Row[];
  }

  /**
   * Many rows of this mode, each by its `id`, each set to its own values, in one statement: the
   * values go as one array a column (typed by `types`, `id` among them), as insertMany's do.
   * `computed` applies to every row. Answers the rows updated, in no particular order.
   */
  async updateMany(db: Queryable, mode: Mode, types: Record<string, string>, values: Record<string, unknown>[], computed: Pick<ComputedAssignments, 'increment' | 'now'> = {}): Promise<Row[]> {
    if (values.length === 0) return [];
    const names = Object.keys(types);
    if (!names.includes('id')) throw new Error('updateMany finds each row by its id');
    const increment = computed.increment ?? [];
    const now = computed.now ?? [];
    assertIdentifiers([...names, ...increment, ...now]);
    if (!Object.values(types).every((type) => IDENTIFIER.test(type))) throw new Error('a column type is a plain name: text, int, boolean, ...');
    const p = modeScopedParams();
    // The given values are named v_<column>, so the RETURNING list's bare names are the table's.
    const arrays = names.map((name) => `${p.add(values.map((row) => row[name] ?? null))}::${types[name]}[]`);
    const assignments = [
      ...names.filter((name) => name !== 'id').map((name) => `${name} = v.v_${name}`),
      ...increment.map((name) => `${name} = ${this.table}.${name} + 1`),
      ...now.map((name) => `${name} = now()`),
    ];
    const { rows } = await db.query(
      `UPDATE ${this.table} SET ${assignments.join(', ')}
       FROM unnest(${arrays.join(', ')}) AS v(${names.map((name) => `v_${name}`).join(', ')})
       WHERE ${this.table}.livemode = $1 AND ${this.table}.id = v.v_id RETURNING ${this.columns}`,
      [mode.livemode, ...p.values],
    );
    return rows as Row[];
  }

  async delete(db: Queryable, mode: Mode, where: string, params: unknown[]): Promise<number> {
    assertConditionFree(where);
    const { rowCount } = await db.query(`DELETE FROM ${this.table} WHERE livemode = $1 AND (${where})`, [
      mode.livemode,
      ...params,
    ]);
    return rowCount ?? 0;
  }
}
