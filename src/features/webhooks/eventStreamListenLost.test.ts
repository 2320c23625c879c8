/**
 * `GET …/events/stream` when the api's LISTEN connection is lost (a PostgreSQL restart or failover
 * ends it): the hub listens again and every open stream reads what committed in between from the
 * table (src/features/webhooks/eventStreamHub.ts), so nothing is missed and nothing is sent twice.
 * The connection is ended by PostgreSQL itself (pg_terminate_backend), on a database of the file's
 * own, so the only LISTEN there is this app's.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders, uniqueEmail } from '../../../test/support/actors.js';
import { forwardedFrom, readJson, simulatedClientAddress } from '../../../test/support/http.js';
import { insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { insertActiveDomain } from '../../../test/support/domains.js';
import { openEventStream, type OpenEventStream } from '../../../test/support/eventStreamClient.js';
import { createOwnDatabase, type OwnDatabase } from '../../../test/support/ownDatabase.js';
import { EVENTS_CHANNEL } from './events.repository.js';

let database: OwnDatabase;
let app: TestApp;
let stream: OpenEventStream | undefined;
let records: string;
let key: { key: string };

beforeAll(async () => {
  database = await createOwnDatabase();
  app = await startTestApp({ env: { DATABASE_URL: database.url } });
  const owner = await insertUser(app.deps, uniqueEmail('stream'));
  const org = await insertOrg(app.deps, { owner, plan: 'enterprise' });
  key = await insertKey(app.deps, { user: owner, scopes: ['dns:read', 'dns:write', 'webhooks:read'], mode: 'test', name: 'listener' });
  records = `/api/v1/orgs/${org.id}/domains/${await insertActiveDomain(app, { org, livemode: false })}/records`;
  stream = await openEventStream(`${app.url}/api/v1/orgs/${org.id}/events/stream`, forwardedFrom(simulatedClientAddress(), { headers: bearer(key.key) }));
});
afterAll(async () => {
  stream?.close();
  await app?.close();
  await database?.drop();
});

async function addRecord(name: string): Promise<void> {
  const res = await app.fetch(records, { method: 'POST', headers: jsonHeaders(key.key), body: JSON.stringify({ type: 'TXT', name, content: `stream ${name}` }) });
  expect(res.status).toBe(201);
  await readJson(res);
}

const about = (name: string) => (m: EventSourceMessage) =>
  m.event === 'delivery' && (JSON.parse(m.data) as { body: string }).body.includes(`"name":"${name}"`);

/** The backends LISTENing in this file's database: this app's hub, once it listens. */
async function listeners(): Promise<number[]> {
  const { rows } = await app.deps.db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND pid <> pg_backend_pid()`,
    [`LISTEN ${EVENTS_CHANNEL}`],
  );
  return rows.map((row) => row.pid);
}

const polling = { timeout: 15_000, interval: 50 };

describe('an event stream whose LISTEN connection is lost', () => {
  it('gets what committed while the api listened again, then what comes after, each once', async () => {
    await stream!.next((m) => m.event === 'ready');
    await addRecord('before');
    await stream!.next(about('before'));

    const [lost] = await vi.waitFor(async () => {
      const pids = await listeners();
      expect(pids).toHaveLength(1);
      return pids;
    }, polling);
    const { rows } = await app.deps.db.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [lost]);
    expect(rows[0]!.ended).toBe(true);
    // Committed while nobody here listens: its notification is gone, the table still has it.
    await addRecord('during');
    await stream!.next(about('during'));

    await expect.poll(listeners, polling).toSatisfy((pids: number[]) => pids.length === 1 && pids[0] !== lost);
    await addRecord('after');
    await stream!.next(about('after'));

    const names = stream!.messages.filter((m) => m.event === 'delivery').map((m) => ['before', 'during', 'after'].find((name) => about(name)(m)));
    expect(names).toEqual(['before', 'during', 'after']);
  });
});
