import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Db } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { newId } from '../../ids.js';
import { insertOrganization } from '../../auth/organizations.js';
import { findBalance } from './balances.repository.js';
import { listLedgerEntriesOfOperation } from './transactions.repository.js';
import { ApiError } from '../../errors.js';
import { captureInPart, release, reserve, topUp } from './ledger.js';

const LIVE = { livemode: true };

let db: Db;
beforeAll(() => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'silent' }));
});
afterAll(async () => db?.end());

/** An organisation with 1000 available and 900 reserved for a three-year registration. */
async function reservedForThreeYears(): Promise<{ orgId: string; operationId: string }> {
  const orgId = (await insertOrganization(db, { id: newId('org'), name: 'Partial capture' })).id;
  await topUp({ db, orgId, livemode: true, amount: 1000, actor: { actorUserId: null, actorKeyId: null }, requestId: null });
  const operationId = newId('op');
  await reserve({ db, orgId, livemode: true, operationId, amount: 900, description: 'Registration of example.com for 3 years' });
  return { orgId, operationId };
}

describe('capturing part of a reservation', () => {
  it('spends the part, releases the rest, with one ledger entry each; again is a no-op', async () => {
    const { orgId, operationId } = await reservedForThreeYears();
    expect(await captureInPart({ db, operationId, amount: 300 })).toMatchObject({ state: 'captured' });
    expect(await captureInPart({ db, operationId, amount: 300 })).toMatchObject({ state: 'captured' });
    const { available, reserved } = await findBalance(db, LIVE, orgId);
    expect({ available, reserved }).toEqual({ available: 700, reserved: 0 });
    const entries = await listLedgerEntriesOfOperation(db, LIVE, operationId);
    expect(entries.map((e) => [e.type, e.amount, e.availableAfter, e.reservedAfter])).toEqual(
      expect.arrayContaining([
        ['reservation', 900, 100, 900],
        ['capture', 300, 100, 600],
        ['release', 600, 700, 0],
      ]),
    );
    expect(entries).toHaveLength(3);
  });

  it('refuses after a release (409) and a part as large as the whole', async () => {
    const released = await reservedForThreeYears();
    await release({ db, operationId: released.operationId });
    const err = await captureInPart({ db, operationId: released.operationId, amount: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'RESERVATION_STATE_CONFLICT' });

    const whole = await reservedForThreeYears();
    await expect(captureInPart({ db, operationId: whole.operationId, amount: 900 })).rejects.toThrow(RangeError);
  });
});
