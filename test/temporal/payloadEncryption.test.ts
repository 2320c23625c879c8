import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { jsonHeaders } from '../support/actors.js';
import { customerFactory } from '../support/customers.js';

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
let raw: { connection: Connection; client: Client };
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  f = customerFactory(app);
  // A client without our codec sees what the Temporal server stores and the Web UI shows.
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  raw = { connection, client: new Client({ connection, namespace: app.deps.config.temporal.namespace }) };
});
afterAll(async () => {
  await raw?.connection.close();
  await app?.close();
});

const AUTH_CODE = `EPP-${Date.now()}-do-not-leak`;

/** Every byte the server holds for a workflow's history, as one string to search. */
async function rawHistory(workflowId: string): Promise<string> {
  const history = await raw.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(JSON.stringify(history)).toString('latin1') + collectBytes(history);
}

/** The payloads' `data` fields are Uint8Arrays: JSON shows them as numbers, so decode them too. */
function collectBytes(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  if (Array.isArray(value)) return value.map(collectBytes).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(collectBytes).join('\n');
  return '';
}

describe('secrets in Temporal', () => {
  it('keeps a transfer auth code out of the workflow history and the stored workflow input', async () => {
    const c = await f.customer(3_000);
    const name = `secret-${Date.now()}.net`;
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.key), 'idempotency-key': `t-${name}` },
      body: JSON.stringify({ name, auth_code: AUTH_CODE, registrant_contact_id: c.contactId }),
    });
    expect(res.status).toBe(202);
    const op = (await res.json()) as { id: string };
    expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');

    const row = await app.deps.db.query<{ workflow_id: string; input: string }>(
      'SELECT workflow_id, workflow_input::text AS input FROM operations WHERE id = $1',
      [op.id],
    );
    expect.soft(row.rows[0]!.input).not.toContain(AUTH_CODE);
    const history = await rawHistory(row.rows[0]!.workflow_id);
    expect(history).toContain(name.split('.')[0]); // the search is real: search attributes stay readable
    expect(history).not.toContain(AUTH_CODE);
  });
});
