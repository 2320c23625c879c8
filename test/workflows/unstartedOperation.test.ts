import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer } from '../support/actors.js';
import { customerFactory, type OperationBody } from '../support/customers.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { abandonPendingOperation, claimOperationForWorkflow, insertOperation, WORKFLOW_INPUT_PURPOSE } from '../../src/features/domains/operations.repository.js';
import { sealJson } from '../../src/db/sealedJson.js';
import { derivedId } from '../../src/ids.js';
import { modeOf } from '../../src/db/modeScope.js';

let app: TestApp;
let cutOff: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  // The same database and Redis, but a Temporal frontend that is not there.
  cutOff = await startTestApp({ env: { TEMPORAL_ADDRESS: '127.0.0.1:1', KEY_HASH_SECRET: app.deps.keyHashSecret } });
});
afterAll(async () => {
  await cutOff?.close();
  await app?.close();
});

describe('a paid operation whose workflow cannot be started', () => {
  it('answers 503, charges nothing, holds nothing, and leaves the name free', { timeout: 90_000 }, async () => {
    const c = await customerFactory(app).customer(3_000);
    const name = `stranded-${Date.now()}.com`;
    const body = { name, years: 1, registrant_contact_id: c.contactId };
    const res = await customerFactory(cutOff).register(c, body, `stranded-${name}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await readJson<MessageErrorBody>(res)).code).toBe('WORKFLOW_ENGINE_UNAVAILABLE');

    expect(await customerFactory(app).balance(c)).toMatchObject({ available: 3_000, reserved: 0 });
    const ops = await readJson<{ data: OperationBody[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }));
    expect(ops.data).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'WORKFLOW_ENGINE_UNAVAILABLE' }) })]);

    // With Temporal back, a new Idempotency-Key registers the same name and charges once.
    const f = customerFactory(app);
    const retry = await f.register(c, body, `stranded-retry-${name}`);
    expect(retry.status).toBe(202);
    expect((await f.pollUntilFinished(c, retry.headers.get('location')!)).status).toBe('succeeded');
    expect(await f.balance(c)).toMatchObject({ available: 3_000 - 1299, reserved: 0 });
  });
});

describe('the api abandoning and a workflow taking an operation', () => {
  async function pendingOperation() {
    const c = await customerFactory(app).customer(0);
    const id = derivedId('op', `race-${Date.now()}-${Math.random()}`);
    await insertOperation(app.deps.db, modeOf(false), {
      id,
      orgId: c.org.id,
      type: 'domain.renew',
      domain: 'race.com',
      domainId: null,
      workflowId: `renew:${c.org.id}:${id}`,
      workflowInput: sealJson(app.deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, {}),
      amount: 100,
    });
    return id;
  }
  const error = { code: 'WORKFLOW_ENGINE_UNAVAILABLE', detail: 'x' };

  it('exactly one of them wins, whichever comes first', async () => {
    const mode = modeOf(false);
    const takenFirst = await pendingOperation();
    expect(await claimOperationForWorkflow(app.deps.db, mode, takenFirst)).toBe(true);
    expect(await claimOperationForWorkflow(app.deps.db, mode, takenFirst)).toBe(true); // a retried activity
    expect(await abandonPendingOperation(app.deps.db, mode, takenFirst, error)).toBe(false);

    const abandonedFirst = await pendingOperation();
    expect(await abandonPendingOperation(app.deps.db, mode, abandonedFirst, error)).toBe(true);
    expect(await claimOperationForWorkflow(app.deps.db, mode, abandonedFirst)).toBe(false);
  });
});
