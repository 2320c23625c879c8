import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { insertActiveDomain } from '../../../test/support/domains.js';
import { insertKey, insertOrg, insertUser } from '../../../test/support/factories.js';
import { bearer } from '../../../test/support/actors.js';
import { readJson, simulatedClientAddress, type MessageErrorBody } from '../../../test/support/http.js';
import { findDomainOfOrg } from '../domains/domains.repository.js';
import { SNAPSHOT_STREAM_STALL_MS } from '../../db/snapshotStream.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * Large zone exports hold one of a few slots of the api process while they are read
 * (src/features/dns/zoneExportSlots.ts): one organisation's slow readers hold only its own, and a
 * reader that stops reading gives its slot back soon after, not when the stream's whole time is up.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface ZoneOwner {
  key: string;
  path: string;
}

/** A free-plan organisation's test domain holding `records` TXT records of about `bytes` each, written straight to the table. */
async function zoneOf(records: number, bytes: number): Promise<ZoneOwner> {
  const user = await insertUser(app.deps);
  const org = await insertOrg(app.deps, { owner: user, plan: 'free' });
  const { key } = await insertKey(app.deps, { user, scopes: ['dns:read'], mode: 'test' });
  const name = await insertActiveDomain(app, { org, livemode: false });
  const domain = (await findDomainOfOrg(app.deps.db, modeOf(false), org.id, name))!;
  await app.deps.db.query(
    `INSERT INTO dns_records (id, domain_id, org_id, livemode, type, name, content, ttl, priority, created_at, updated_at)
     SELECT 'rec_' || substr(md5(random()::text || i), 1, 22), $1, $2, false, 'TXT', 'r' || i, '"' || repeat('x', $4::int) || '"', 300, NULL, now(), now()
     FROM generate_series(1, $3::int) AS i`,
    [domain.id, org.id, records, bytes],
  );
  return { key, path: `/api/v1/orgs/${org.id}/domains/${name}/zone` };
}

/** The export's status; its body, if any, is not read. */
async function exportStatus(owner: ZoneOwner): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  const res = await app.fetch(owner.path, { headers: bearer(owner.key) });
  if (res.status === 200) {
    await res.body?.cancel();
    return { status: 200, retryAfter: null };
  }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: (await readJson<MessageErrorBody>(res)).code };
}

/** A GET of the zone on a socket that takes the answer's head and then stops reading, as a stalled client does. */
function stalledExport(owner: ZoneOwner): Promise<{ head: string; socket: net.Socket }> {
  const url = new URL(app.url);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.write(
    `GET ${owner.path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${owner.key}\r\nX-Forwarded-For: ${simulatedClientAddress()}\r\n\r\n`,
  );
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.pause();
      socket.off('data', onData);
      resolve({ head: text.slice(0, end), socket });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

describe('large zone exports', () => {
  it('hold one slot per free organisation: another organisation exports while one reader is stalled, whose slot is back soon after', { timeout: 120_000 }, async () => {
    // About 30 MB: far more than the socket buffers between the api and a reader hold.
    const slow = await zoneOf(30_000, 1_000);
    const other = await zoneOf(2_500, 100);
    const stalled = await stalledExport(slow);
    expect(stalled.head).toMatch(/^HTTP\/1\.1 200/);
    const stalledSince = Date.now();

    // Its organisation's one slot is held: a second large export is refused at once, to be retried.
    expect(await exportStatus(slow)).toEqual({ status: 429, retryAfter: '5', code: 'RATE_LIMITED' });
    // Another organisation's large export is answered whole meanwhile.
    const theirs = await app.fetch(other.path, { headers: bearer(other.key) });
    expect(theirs.status).toBe(200);
    expect((await theirs.text()).match(/ IN TXT /g)?.length).toBe(2_500);

    // The stalled reader's slot comes back once it has left the answer untaken for the stall bound.
    await expect.poll(async () => (await exportStatus(slow)).status, { timeout: 60_000, interval: 500 }).toBe(200);
    expect(Date.now() - stalledSince).toBeLessThan(SNAPSHOT_STREAM_STALL_MS + 20_000);
    stalled.socket.destroy();
  });
});
