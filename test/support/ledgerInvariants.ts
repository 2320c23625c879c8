import { expect } from 'vitest';
import type { Queryable } from '../../src/db/pool.js';
import { bearer } from './actors.js';
import type { Customer } from './domains.js';
import { readJson } from './http.js';

/** One load client's record: what it was accepted for, what surprised it, and counts by outcome. */
export interface ClientRun {
  customer: Pick<Customer, 'org' | 'key'>;
  contactId: string;
  accepted: Map<string, string>; // operation id -> domain name
  unexpected: string[];
  counts: Record<string, number>;
}

/** Where the invariants are read: the database, and an api to ask for balances. */
export interface LoadTarget {
  db: Queryable;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
}

async function waitUntilTerminal(db: Queryable, orgIds: string[]): Promise<number> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { rows } = await db.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM operations WHERE org_id = ANY($1) AND status IN ('pending', 'running')`,
      [orgIds],
    );
    if (rows[0]!.open === 0 || Date.now() > deadline) return rows[0]!.open;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The invariants: every accepted operation terminal, balance = top-ups - captures, nothing held, no orphan ledger row. */
export async function assertLedgerInvariants(api: LoadTarget, runs: ClientRun[]): Promise<void> {
  const orgIds = runs.map((r) => r.customer.org.id);
  expect(await waitUntilTerminal(api.db, orgIds)).toBe(0);
  for (const run of runs) {
    const orgId = run.customer.org.id;
    const ops = await api.db.query<{ id: string; status: string; amount: number }>(
      'SELECT id, status, amount::int AS amount FROM operations WHERE org_id = $1',
      [orgId],
    );
    // Exactly the accepted operations exist, and each has ended.
    expect(new Set(ops.rows.map((o) => o.id))).toEqual(new Set(run.accepted.keys()));
    for (const op of ops.rows) expect(['succeeded', 'failed', 'cancelled']).toContain(op.status);
    const succeeded = ops.rows.filter((o) => o.status === 'succeeded');

    const ledger = await api.db.query<{ type: string; amount: number; operationId: string | null; operationStatus: string | null }>(
      `SELECT t.type, t.amount::int AS amount, t.operation_id AS "operationId", o.status AS "operationStatus"
       FROM billing_transactions t LEFT JOIN operations o ON o.id = t.operation_id WHERE t.org_id = $1`,
      [orgId],
    );
    expect(ledger.rows.filter((e) => e.operationId !== null && e.operationStatus === null)).toEqual([]);
    const captures = ledger.rows.filter((e) => e.type === 'capture');
    expect(captures.map((e) => e.operationId).sort()).toEqual(succeeded.map((o) => o.id).sort());
    const topUps = ledger.rows.filter((e) => e.type === 'top_up').reduce((sum, e) => sum + e.amount, 0);
    const spent = succeeded.reduce((sum, o) => sum + o.amount, 0);

    const balance = await readJson<{ available: number; reserved: number }>(
      await api.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers: bearer(run.customer.key) }),
    );
    expect(balance).toMatchObject({ available: topUps - spent, reserved: 0 });
    const held = await api.db.query(`SELECT operation_id FROM billing_reservations WHERE org_id = $1 AND state = 'reserved'`, [orgId]);
    expect(held.rows).toEqual([]);
  }
}

