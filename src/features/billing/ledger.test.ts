import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Db } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { newId } from '../../ids.js';
import { insertOrganization } from '../../auth/organizations.js';
import { findBalance } from './balances.repository.js';
import { findReservation } from './reservations.repository.js';
import { listLedgerEntries, listLedgerEntriesOfOperation } from './transactions.repository.js';
import { ApiError } from '../../errors.js';
import { InsufficientFundsError } from './errors.js';
import { capture, release, reserve, topUp } from './ledger.js';
import { modeOf } from '../../db/modeScope.js';

const LIVE = modeOf(true);
const TEST = modeOf(false);
const SYSTEM = { actorUserId: null, actorKeyId: null };

let db: Db;
beforeAll(() => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'silent' }));
});
afterAll(async () => db?.end());

async function buildOrg(): Promise<string> {
  return (await insertOrganization(db, { id: newId('org'), name: 'Ledger test' })).id;
}

async function orgWith(available: number, livemode = true): Promise<string> {
  const orgId = await buildOrg();
  await topUp({ db, orgId, livemode, amount: available, actor: SYSTEM, requestId: null });
  return orgId;
}

const balanceOf = async (orgId: string, mode = LIVE) => {
  const { available, reserved } = await findBalance(db, mode, orgId);
  return { available, reserved };
};

const reserveFor = (orgId: string, operationId: string, amount: number, livemode = true) =>
  reserve({ db, orgId, livemode, operationId, amount, description: `Registration for ${operationId}` });

/** The error a promise rejects with, as the `{status, code}` a client would see. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; detail: unknown }> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { status: err.status, code: err.code, detail: err.detail };
}

describe('ledger arithmetic', () => {
  it('top-up, reserve, capture and release move available and reserved by exact amounts', async () => {
    const orgId = await buildOrg();
    const entry = await topUp({ db, orgId, livemode: true, amount: 1000, actor: SYSTEM, requestId: 'req_1' });
    expect(entry).toMatchObject({ id: expect.stringMatching(/^txn_/), type: 'top_up', amount: 1000, currency: 'USD', availableAfter: 1000, reservedAfter: 0, operationId: null, requestId: 'req_1' });
    expect(await balanceOf(orgId)).toEqual({ available: 1000, reserved: 0 });

    const [a, b] = [newId('op'), newId('op')];
    const reservation = await reserveFor(orgId, a, 300);
    expect(reservation).toMatchObject({ operationId: a, orgId, livemode: true, amount: 300, state: 'reserved', settledAt: null });
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 300 });
    await reserveFor(orgId, b, 200);
    expect(await balanceOf(orgId)).toEqual({ available: 500, reserved: 500 });

    expect(await capture({ db, operationId: a })).toMatchObject({ state: 'captured', amount: 300, settledAt: expect.any(Date) });
    expect(await balanceOf(orgId)).toEqual({ available: 500, reserved: 200 });
    expect(await release({ db, operationId: b })).toMatchObject({ state: 'released', amount: 200 });
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 0 });

    const ledger = await listLedgerEntries(db, LIVE, { orgId, limit: 10, after: undefined });
    expect(ledger.map((e) => [e.type, e.amount, e.operationId, e.availableAfter, e.reservedAfter])).toEqual([
      ['release', 200, b, 700, 0],
      ['capture', 300, a, 500, 200],
      ['reservation', 200, b, 500, 500],
      ['reservation', 300, a, 700, 300],
      ['top_up', 1000, null, 1000, 0],
    ]);
    expect(ledger[0]!.description).toBe(`Registration for ${b}`);
  });

  it('answers 402 INSUFFICIENT_FUNDS stating available and needed, and changes nothing', async () => {
    const orgId = await orgWith(250);
    const operationId = newId('op');
    const err = await failure(reserveFor(orgId, operationId, 300));
    expect(err).toEqual({
      status: 402,
      code: 'INSUFFICIENT_FUNDS',
      detail: 'Insufficient funds: 250 available, 300 needed (USD minor units). Top up the balance and retry.',
    });
    await expect(reserveFor(orgId, operationId, 300)).rejects.toBeInstanceOf(InsufficientFundsError);
    expect(await balanceOf(orgId)).toEqual({ available: 250, reserved: 0 });
    expect(await findReservation(db, LIVE, operationId)).toBeUndefined();
    expect((await listLedgerEntries(db, LIVE, { orgId, limit: 10, after: undefined })).map((e) => e.type)).toEqual(['top_up']);

    // Exactly the available amount is enough.
    await reserveFor(orgId, operationId, 250);
    expect(await balanceOf(orgId)).toEqual({ available: 0, reserved: 250 });
  });

  it('answers 402 for an organisation that never had money, without creating a balance', async () => {
    const orgId = await buildOrg();
    expect(await failure(reserveFor(orgId, newId('op'), 1))).toMatchObject({ status: 402, detail: expect.stringContaining('0 available, 1 needed') });
    const { rows } = await db.query('SELECT 1 FROM billing_balances WHERE org_id = $1', [orgId]);
    expect(rows).toEqual([]);
    expect(await balanceOf(orgId)).toEqual({ available: 0, reserved: 0 });
  });

  it('refuses amounts that are not positive integers', async () => {
    const orgId = await orgWith(100);
    for (const amount of [0, -5, 1.5, Number.NaN]) {
      await expect(reserveFor(orgId, newId('op'), amount)).rejects.toThrow(RangeError);
      await expect(topUp({ db, orgId, livemode: true, amount, actor: SYSTEM, requestId: null })).rejects.toThrow(RangeError);
    }
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 0 });
  });
});

describe('keyed by operation id', () => {
  it('reserving the same operation again returns the existing reservation and reserves nothing more', async () => {
    const orgId = await orgWith(1000);
    const operationId = newId('op');
    const first = await reserveFor(orgId, operationId, 400);
    expect(await reserveFor(orgId, operationId, 400)).toEqual(first);
    expect(await balanceOf(orgId)).toEqual({ available: 600, reserved: 400 });
    expect((await listLedgerEntriesOfOperation(db, LIVE, operationId)).map((e) => e.type)).toEqual(['reservation']);

  });

  it('refuses (409 RESERVATION_STATE_CONFLICT) to hand out a reservation already captured or released', async () => {
    const orgId = await orgWith(1000);
    const [captured, released] = [newId('op'), newId('op')];
    await reserveFor(orgId, captured, 400);
    await capture({ db, operationId: captured });
    await reserveFor(orgId, released, 300);
    await release({ db, operationId: released });
    expect(await balanceOf(orgId)).toEqual({ available: 600, reserved: 0 });
    for (const operationId of [captured, released]) {
      expect(await failure(reserveFor(orgId, operationId, operationId === captured ? 400 : 300))).toMatchObject({ status: 409, code: 'RESERVATION_STATE_CONFLICT' });
    }
    expect(await balanceOf(orgId)).toEqual({ available: 600, reserved: 0 });
    expect((await listLedgerEntriesOfOperation(db, LIVE, released)).map((e) => e.type)).toEqual(['reservation', 'release']);
  });

  it('answers 409 RESERVATION_MISMATCH for the same operation id with another amount, organisation or mode', async () => {
    const orgId = await orgWith(1000);
    const otherOrg = await orgWith(1000);
    await topUp({ db, orgId, livemode: false, amount: 1000, actor: SYSTEM, requestId: null });
    const operationId = newId('op');
    await reserveFor(orgId, operationId, 400);
    const attempts = [
      () => reserveFor(orgId, operationId, 500),
      () => reserveFor(otherOrg, operationId, 400),
      () => reserveFor(orgId, operationId, 400, false),
    ];
    for (const attempt of attempts) {
      expect(await failure(attempt())).toMatchObject({ status: 409, code: 'RESERVATION_MISMATCH' });
    }
    expect(await balanceOf(orgId)).toEqual({ available: 600, reserved: 400 });
    expect(await balanceOf(orgId, TEST)).toEqual({ available: 1000, reserved: 0 });
    expect(await balanceOf(otherOrg)).toEqual({ available: 1000, reserved: 0 });
  });

  it('capture twice captures once; release after capture is 409 RESERVATION_STATE_CONFLICT', async () => {
    const orgId = await orgWith(1000);
    const operationId = newId('op');
    await reserveFor(orgId, operationId, 300);
    const captured = await capture({ db, operationId });
    expect(await capture({ db, operationId })).toEqual(captured);
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 0 });
    expect(await failure(release({ db, operationId }))).toEqual({
      status: 409,
      code: 'RESERVATION_STATE_CONFLICT',
      detail: `The reservation of operation ${operationId} was already captured; it cannot be released`,
    });
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 0 });
    expect((await listLedgerEntriesOfOperation(db, LIVE, operationId)).map((e) => e.type)).toEqual(['reservation', 'capture']);
  });

  it('release twice releases once; capture after release is 409 RESERVATION_STATE_CONFLICT', async () => {
    const orgId = await orgWith(1000);
    const operationId = newId('op');
    await reserveFor(orgId, operationId, 300);
    const released = await release({ db, operationId });
    expect(await release({ db, operationId })).toEqual(released);
    expect(await balanceOf(orgId)).toEqual({ available: 1000, reserved: 0 });
    expect(await failure(capture({ db, operationId }))).toMatchObject({ status: 409, code: 'RESERVATION_STATE_CONFLICT' });
    expect(await balanceOf(orgId)).toEqual({ available: 1000, reserved: 0 });
    expect((await listLedgerEntriesOfOperation(db, LIVE, operationId)).map((e) => e.type)).toEqual(['reservation', 'release']);
  });

  it('answers 404 NOT_FOUND for capture or release of an operation without a reservation', async () => {
    expect(await failure(capture({ db, operationId: newId('op') }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await failure(release({ db, operationId: newId('op') }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('concurrency', () => {
  it('ten concurrent reservations of 300 against 1000: exactly three succeed, the balance never goes negative', async () => {
    const orgId = await orgWith(1000);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => reserveFor(orgId, newId('op'), 300)));
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(fulfilled).toHaveLength(3);
    expect(rejected).toHaveLength(7);
    for (const reason of rejected) expect(reason).toBeInstanceOf(InsufficientFundsError);
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 900 });
    const ledger = await listLedgerEntries(db, LIVE, { orgId, limit: 20, after: undefined });
    expect(ledger.map((e) => [e.type, e.availableAfter, e.reservedAfter])).toEqual([
      ['reservation', 100, 900],
      ['reservation', 400, 600],
      ['reservation', 700, 300],
      ['top_up', 1000, 0],
    ]);
  });

  it('concurrent retries of one reserve, capture and release still move the money once', async () => {
    const orgId = await orgWith(1000);
    const operationId = newId('op');
    const reserved = await Promise.all(Array.from({ length: 6 }, () => reserveFor(orgId, operationId, 300)));
    expect(new Set(reserved.map((r) => r.state))).toEqual(new Set(['reserved']));
    expect(await balanceOf(orgId)).toEqual({ available: 700, reserved: 300 });

    const settled = await Promise.allSettled([
      ...Array.from({ length: 3 }, () => capture({ db, operationId })),
      ...Array.from({ length: 3 }, () => release({ db, operationId })),
    ]);
    const final = (await findReservation(db, LIVE, operationId))!;
    const expected = final.state === 'captured' ? { available: 700, reserved: 0 } : { available: 1000, reserved: 0 };
    expect(await balanceOf(orgId)).toEqual(expected);
    // The winning kind succeeds every time; the other kind always conflicts.
    for (const result of settled) {
      if (result.status === 'fulfilled') expect(result.value.state).toBe(final.state);
      else expect(result.reason).toMatchObject({ status: 409, code: 'RESERVATION_STATE_CONFLICT' });
    }
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await listLedgerEntriesOfOperation(db, LIVE, operationId)).toHaveLength(2);
  });
});

describe('modes and storage', () => {
  it('keeps test-mode balances separate from live ones', async () => {
    const orgId = await orgWith(1000);
    await topUp({ db, orgId, livemode: false, amount: 50, actor: SYSTEM, requestId: null });
    expect(await failure(reserveFor(orgId, newId('op'), 100, false))).toMatchObject({ status: 402, detail: expect.stringContaining('50 available') });
    const operationId = newId('op');
    await reserveFor(orgId, operationId, 40, false);
    expect(await balanceOf(orgId, TEST)).toEqual({ available: 10, reserved: 40 });
    expect(await balanceOf(orgId, LIVE)).toEqual({ available: 1000, reserved: 0 });
    expect(await findReservation(db, LIVE, operationId)).toBeUndefined();
    await capture({ db, operationId });
    expect(await balanceOf(orgId, TEST)).toEqual({ available: 10, reserved: 0 });
    expect(await balanceOf(orgId, LIVE)).toEqual({ available: 1000, reserved: 0 });
    expect((await listLedgerEntries(db, LIVE, { orgId, limit: 10, after: undefined })).map((e) => e.livemode)).toEqual([true]);
  });

  it('the ledger is append-only and balances cannot go negative, whatever SQL is sent', async () => {
    const orgId = await orgWith(100);
    await expect(db.query('UPDATE billing_transactions SET amount = 1 WHERE org_id = $1', [orgId])).rejects.toThrow(/append-only/);
    await expect(db.query('DELETE FROM billing_transactions WHERE org_id = $1', [orgId])).rejects.toThrow(/append-only/);
    await expect(db.query('UPDATE billing_balances SET available = -1 WHERE org_id = $1', [orgId])).rejects.toMatchObject({ code: '23514' });
    await expect(db.query('UPDATE billing_balances SET reserved = -1 WHERE org_id = $1', [orgId])).rejects.toMatchObject({ code: '23514' });
    expect(await balanceOf(orgId)).toEqual({ available: 100, reserved: 0 });
  });
});
