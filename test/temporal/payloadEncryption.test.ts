import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startCodecServer } from '../../src/codecServer/start.js';
import type { ListeningServer } from '../../src/http/listen.js';
import { createLogger } from '../../src/logger.js';
import { jsonHeaders } from '../support/actors.js';
import { customerFactory } from '../support/customers.js';

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
let raw: { connection: Connection; client: Client };
let codecServer: ListeningServer;
const UI_ORIGIN = 'http://ui.test:8233';
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  f = customerFactory(app);
  // A client without our codec sees what the Temporal server stores and the Web UI shows.
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  raw = { connection, client: new Client({ connection, namespace: app.deps.config.temporal.namespace }) };
  const config = app.deps.config;
  codecServer = await startCodecServer({ ...config, codecServer: { host: '127.0.0.1', port: 0, corsOrigins: [UI_ORIGIN], token: undefined } }, createLogger({ logLevel: 'silent' }));
});
afterAll(async () => {
  await codecServer?.close();
  await raw?.connection.close();
  await app?.close();
});

const AUTH_CODE = `EPP-${Date.now()}-do-not-leak`;

/** Every byte the server holds for a workflow's history, as one string to search. */
async function rawHistory(workflowId: string): Promise<string> {
  const history = await raw.client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(JSON.stringify(history)).toString('latin1') + collectBytes(history);
}

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

/** The workflow's input as the server stores it, and as the codec server gives it back to the Web UI. */
async function startInput(workflowId: string): Promise<{ stored: Payload[]; decoded: unknown[] }> {
  const history = await raw.client.workflow.getHandle(workflowId).fetchHistory();
  const stored = (history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []) as Payload[];
  const res = await fetch(`${codecServer.url}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN },
    body: JSON.stringify({ payloads: stored.map(toJson) }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  const body = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
  const decoded = body.payloads.map((p) => {
    expect(Buffer.from(p.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    return JSON.parse(Buffer.from(p.data, 'base64').toString()) as unknown;
  });
  return { stored, decoded };
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
    expect(history).toContain('binary/encrypted');

    // The operator's view through the codec server shows what was sent.
    const { stored, decoded } = await startInput(row.rows[0]!.workflow_id);
    expect(Buffer.from(stored[0]!.metadata!['encryption-key-id']!).toString()).toBe(app.deps.payloadKeys.activeKeyId);
    expect(decoded).toEqual([expect.objectContaining({ name, authCode: AUTH_CODE })]);
  });

  it('keeps the registrant contact out of a registration history', async () => {
    const c = await f.customer(3_000);
    const name = `private-${Date.now()}.com`;
    const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `r-${name}`);
    expect(res.status).toBe(202);
    const op = (await res.json()) as { id: string };
    expect((await f.pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
    const { rows } = await app.deps.db.query<{ workflow_id: string }>('SELECT workflow_id FROM operations WHERE id = $1', [op.id]);
    const workflowId = rows[0]!.workflow_id;
    const history = await rawHistory(workflowId);
    for (const secret of [c.email, 'Lovelace', '+442071838750', '1 High St', c.contactId]) expect(history).not.toContain(secret);
    const { decoded } = await startInput(workflowId);
    expect(decoded).toEqual([expect.objectContaining({ name, registrantContactId: c.contactId })]);
  });
});
