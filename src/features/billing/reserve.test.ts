/**
 * reserve with the rows it pays for (PaidFor): the ledger's invariants hold on both its ways, the one
 * statement (no limit to count) and the long way, and the rows are written with the reservation or
 * not at all. The rows here are a table of this file's own, standing for another feature's.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, withTransaction, type Db } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { newId } from '../../ids.js';
import { insertOrganization } from '../../auth/organizations.js';
import { findBalance } from './balances.repository.js';
import { findReservation } from './reservations.repository.js';
import { listLedgerEntriesOfOperation } from './transactions.repository.js';
import { InsufficientFundsError } from './errors.js';
import { reserve, topUp, type PaidFor, type ReservationTerms } from './ledger.js';
import { statementsOf } from '../../../test/support/statements.js';
import { modeOf } from '../../db/modeScope.js';

const TEST = modeOf(false);
const PAID = 'reserve_test_paid_rows';

let db: Db;
beforeAll(async () => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'silent' }));
  await db.query(`CREATE TABLE IF NOT EXISTS ${PAID} (operation_id text PRIMARY KEY, name text NOT NULL UNIQUE)`);
});
afterAll(async () => {
  await db?.query(`DROP TABLE IF EXISTS ${PAID}`);
  await db?.end();
});

type PaidRow = { operationId: string; name: string };

/** The row an operation writes with its reservation, in both forms reserve takes; `name` is unique. */
function paidRow(operationId: string, name: string): PaidFor<PaidRow> {
  const insert = `INSERT INTO ${PAID} (operation_id, name)`;
  const returning = 'RETURNING operation_id AS "operationId", name';
  return {
    write: async (tx) => (await tx.query<PaidRow>(`${insert} VALUES ($1, $2) ${returning}`, [operationId, name])).rows[0]!,
    inOneStatement: {
      name: 'reserve-test-paid-row',
      ctes: (first) => `paid AS (${insert} SELECT $${first}, $${first + 1} FROM reserved ${returning})`,
      values: [operationId, name],
      answer: 'paid',
    },
  };
}

async function orgWith(available: number): Promise<string> {
  const orgId = (await insertOrganization(db, { id: newId('org'), name: 'Reserve test' })).id;
  await topUp({ db, orgId, livemode: false, amount: available, actor: { actorUserId: null, actorKeyId: null }, requestId: null });
  return orgId;
}

const terms = (orgId: string, amount: number): ReservationTerms => ({
  orgId,
  livemode: false,
  operationId: newId('op'),
  amount,
  description: `Registration for ${amount}`,
});

const balanceOf = async (orgId: string) => {
  const { available, reserved } = await findBalance(db, TEST, orgId);
  return { available, reserved };
};

async function paidRowsOf(operationIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ operationId: string }>(`SELECT operation_id AS "operationId" FROM ${PAID} WHERE operation_id = ANY($1) ORDER BY 1`, [operationIds]);
  return rows.map((row) => row.operationId);
}

describe('a reservation with the rows it pays for', () => {
  it('is one statement when nothing is limited, writing the rows, the reservation and its ledger entry', async () => {
    const orgId = await orgWith(1000);
    const asked = terms(orgId, 300);
    const name = `one-${asked.operationId}`;
    let answer: PaidRow | undefined;
    const statements = await statementsOf(db, async () => {
      answer = await reserve({ db, ...asked }, paidRow(asked.operationId, name));
    });
    expect(statements).toHaveLength(1);
    expect(answer).toEqual({ operationId: asked.operationId, name });
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 300 });
    expect(await findReservation(db, TEST, asked.operationId)).toMatchObject({ state: 'reserved', amount: 300 });
    expect((await listLedgerEntriesOfOperation(db, TEST, asked.operationId)).map((e) => [e.type, e.amount, e.availableAfter, e.reservedAfter])).toEqual([
      ['reservation', 300, 700, 300],
    ]);
  });

  it('takes the long way under a monthly limit, which counts it: 402 SPEND_LIMIT_REACHED past it with no row written', async () => {
    const orgId = await orgWith(1000);
    await db.query('UPDATE billing_balances SET monthly_spend_limit = 500 WHERE org_id = $1 AND NOT livemode', [orgId]);
    const within = terms(orgId, 400);
    await reserve({ db, ...within }, paidRow(within.operationId, `within-${within.operationId}`));
    const past = terms(orgId, 200);
    await expect(reserve({ db, ...past }, paidRow(past.operationId, `past-${past.operationId}`))).rejects.toMatchObject({ status: 402, code: 'SPEND_LIMIT_REACHED' });
    expect(await balanceOf(orgId)).toEqual({ available: 600, reserved: 400 });
    expect(await paidRowsOf([within.operationId, past.operationId])).toEqual([within.operationId]);
    expect(await findReservation(db, TEST, past.operationId)).toBeUndefined();
  });

  it('ten concurrent ones of 300 against 1000: exactly three reserved, each with its row, the balance never negative', async () => {
    const orgId = await orgWith(1000);
    const asked = Array.from({ length: 10 }, () => terms(orgId, 300));
    const results = await Promise.allSettled(asked.map((t) => reserve({ db, ...t }, paidRow(t.operationId, `race-${t.operationId}`))));
    const reserved = results.flatMap((r, i) => (r.status === 'fulfilled' ? [asked[i]!.operationId] : []));
    expect(reserved).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InsufficientFundsError);
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 900 });
    expect(await paidRowsOf(asked.map((t) => t.operationId))).toEqual([...reserved].sort());
  });

  it('writes nothing when a unique index refuses a row it pays for, on either way', async () => {
    const orgId = await orgWith(1000);
    const first = terms(orgId, 100);
    const name = `taken-${first.operationId}`;
    await reserve({ db, ...first }, paidRow(first.operationId, name));
    const again = terms(orgId, 100);
    await expect(reserve({ db, ...again }, paidRow(again.operationId, name))).rejects.toMatchObject({ code: '23505' });
    await db.query('UPDATE billing_balances SET monthly_spend_limit = 100000 WHERE org_id = $1 AND NOT livemode', [orgId]);
    await expect(reserve({ db, ...again }, paidRow(again.operationId, name))).rejects.toMatchObject({ code: '23505' });
    expect(await balanceOf(orgId)).toEqual({ available: 900, reserved: 100 });
    expect(await findReservation(db, TEST, again.operationId)).toBeUndefined();
  });

  it('charges an operation id once: rows paid for under an id already reserved are refused, and nothing more moves', async () => {
    const orgId = await orgWith(1000);
    const held = terms(orgId, 100);
    await reserve({ db, ...held });
    await expect(reserve({ db, ...held }, paidRow(held.operationId, `twin-${held.operationId}`))).rejects.toMatchObject({ code: '23505' });
    const rowsFirst = { write: () => Promise.resolve(held.operationId) };
    await expect(reserve({ db, ...held }, rowsFirst)).rejects.toMatchObject({ status: 409, code: 'RESERVATION_MISMATCH' });
    expect(await balanceOf(orgId)).toEqual({ available: 900, reserved: 100 });
    expect(await paidRowsOf([held.operationId])).toEqual([]);
    expect((await listLedgerEntriesOfOperation(db, TEST, held.operationId)).map((e) => e.type)).toEqual(['reservation']);
  });

  it("in the caller's transaction, commits or rolls back with it", async () => {
    const orgId = await orgWith(1000);
    const rolledBack = terms(orgId, 300);
    await expect(
      withTransaction(db, async (tx) => {
        await reserve({ tx, ...rolledBack }, paidRow(rolledBack.operationId, `rolled-${rolledBack.operationId}`));
        throw new Error('the caller gives up');
      }),
    ).rejects.toThrow('the caller gives up');
    expect(await balanceOf(orgId)).toEqual({ available: 1000, reserved: 0 });
    expect(await paidRowsOf([rolledBack.operationId])).toEqual([]);
    expect(await findReservation(db, TEST, rolledBack.operationId)).toBeUndefined();
  });
});
