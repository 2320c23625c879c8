/**
 * A new operation's reservation in one statement (reserveFromUnlimitedBalance) takes the API key
 * lineage's lock and the balance row's in the order every reservation takes them (the key's first),
 * and takes the lineage's even when it leaves the reservation to the long way (reserveUnderLocks in
 * src/features/billing/ledger.ts): otherwise two reservations could wait on each other in a circle,
 * or a limited lineage be counted unlocked.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { creditBalance, insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { lockApiKeyLineage } from '../../auth/apiKeys.js';
import { reserveFromUnlimitedBalance } from './reservations.repository.js';
import { newId } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const mode = modeOf(false);

async function keyWithBalance(amount: number): Promise<{ orgId: string; keyId: string }> {
  const user = await insertUser(app.deps);
  const org = await insertOrg(app.deps, { owner: user });
  const key = await insertKey(app.deps, { user, scopes: ['domains:write'], mode: 'test' });
  await creditBalance(app.deps, { orgId: org.id, livemode: false, amount, by: user });
  return { orgId: org.id, keyId: key.id };
}

async function inTransaction(): Promise<{ client: pg.PoolClient; pid: number }> {
  const client = await app.deps.db.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { client, pid: rows[0]!.pid };
}

async function end(client: pg.PoolClient, how: 'COMMIT' | 'ROLLBACK'): Promise<void> {
  await client.query(how);
  client.release();
}

/** The advisory locks a backend holds (`granted`) or waits for. */
async function advisoryLocks(pid: number): Promise<{ granted: boolean }[]> {
  const { rows } = await app.deps.db.query<{ granted: boolean }>(`SELECT granted FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`, [pid]);
  return rows;
}

const reservation = (orgId: string, keyId: string) => ({
  operationId: newId('op'),
  orgId,
  amount: 1299,
  description: 'Registration of lock-order.com for 1 year',
  apiKeyId: keyId,
  ledgerEntryId: newId('txn'),
});

describe('a new operation reserved in one statement', () => {
  it("waits for the key lineage's lock without holding the balance row, then reserves", async () => {
    const { orgId, keyId } = await keyWithBalance(5_000);
    const holder = await inTransaction();
    await lockApiKeyLineage(holder.client, keyId);

    const reserving = await inTransaction();
    const reserved = reserveFromUnlimitedBalance(reserving.client, mode, reservation(orgId, keyId));
    await expect.poll(() => advisoryLocks(reserving.pid), { timeout: 10_000, interval: 50 }).toEqual([{ granted: false }]);
    // While it waits, the balance row is free: another transaction locks it without waiting.
    const other = await inTransaction();
    const locked = await other.client.query(`SELECT available FROM billing_balances WHERE org_id = $1 AND livemode = false FOR UPDATE NOWAIT`, [orgId]);
    expect(locked.rows).toEqual([{ available: '5000' }]);
    await end(other.client, 'ROLLBACK');

    await end(holder.client, 'COMMIT');
    expect(await reserved).toEqual({ reserved: true, balanceMoved: true });
    await end(reserving.client, 'COMMIT');
    const { rows } = await app.deps.db.query(`SELECT available, reserved FROM billing_balances WHERE org_id = $1 AND livemode = false`, [orgId]);
    expect(rows).toEqual([{ available: '3701', reserved: '1299' }]);
  });

  it("takes the lineage's lock, and moves nothing, when a key of the lineage has a monthly limit", async () => {
    const { orgId, keyId } = await keyWithBalance(5_000);
    await app.deps.db.query('UPDATE api_keys SET monthly_spend_limit = 10000 WHERE id = $1', [keyId]);
    const reserving = await inTransaction();
    expect(await reserveFromUnlimitedBalance(reserving.client, mode, reservation(orgId, keyId))).toEqual({ reserved: false, balanceMoved: false });
    expect(await advisoryLocks(reserving.pid)).toEqual([{ granted: true }]);
    await end(reserving.client, 'ROLLBACK');
  });
});
