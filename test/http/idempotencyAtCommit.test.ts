/**
 * The Idempotency-Key of a route whose effect is one transaction (creating a contact) is claimed by
 * the statement that stores its answer, in that transaction (src/http/idempotencyAtCommit.ts): the
 * promises of test/http/idempotency.test.ts hold, with one statement fewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { statementsOf } from '../support/statements.js';
import { withTransaction } from '../../src/db/pool.js';

const GRACE = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: 'grace@example.com',
  phone: '+442071234567',
  address1: '1 Navy Row',
  city: 'Leeds',
  postal_code: 'LS1 1AA',
  country: 'GB',
};

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface Caller {
  token: string;
  userId: string;
  livemode: boolean;
  orgId: string;
}

async function caller(label: string): Promise<Caller> {
  const token = await sessionToken(app, uniqueEmail(label));
  const org = await createOrg(app, token);
  const me = await readJson<{ id: string; auth: { mode: string } }>(await app.fetch('/api/v1/me', { headers: bearer(token) }));
  return { token, userId: me.id, livemode: me.auth.mode === 'live', orgId: org.id };
}

const createContact = (c: Caller, key: string, body: unknown = GRACE, token = c.token) =>
  app.fetch(`/api/v1/orgs/${c.orgId}/contacts`, {
    method: 'POST',
    headers: { ...jsonHeaders(token), 'idempotency-key': key },
    body: JSON.stringify(body),
  });

async function contactIds(c: Caller): Promise<string[]> {
  const page = await readJson<{ data: { id: string }[] }>(await app.fetch(`/api/v1/orgs/${c.orgId}/contacts?limit=100`, { headers: bearer(c.token) }));
  return page.data.map((contact) => contact.id);
}

describe('Idempotency-Key claimed in the transaction that creates a contact', () => {
  it('replays the first answer, headers included, and creates one contact', async () => {
    const c = await caller('at-commit-replay');
    const first = await createContact(c, 'contact-1');
    expect(first.status).toBe(201);
    const created = await readJson<{ id: string }>(first);
    const again = await createContact(c, 'contact-1', { ...GRACE, country: 'GB' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await readJson(again)).toEqual(created);
    expect(await contactIds(c)).toEqual([created.id]);
  });

  it('refuses the key for another body or another session (409 IDEMPOTENCY_KEY_REUSED), rolling back what the request made', async () => {
    const c = await caller('at-commit-reused');
    expect((await createContact(c, 'contact-2')).status).toBe(201);
    const otherBody = await createContact(c, 'contact-2', { ...GRACE, first_name: 'Charles' });
    expect(otherBody.status).toBe(409);
    expect(await readJson(otherBody)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(otherBody.headers.get('location')).toBeNull();
    const otherSession = await sessionToken(app, (await readJson<{ email: string }>(await app.fetch('/api/v1/me', { headers: bearer(c.token) }))).email);
    const fromOtherSession = await createContact(c, 'contact-2', GRACE, otherSession);
    expect(fromOtherSession.status).toBe(409);
    expect(await readJson(fromOtherSession)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await contactIds(c)).toHaveLength(1);
  });

  it('stores a refusal as the other layer does: the same invalid request is answered the same, replayed', async () => {
    const c = await caller('at-commit-invalid');
    const invalid = { ...GRACE, country: 'Atlantis' };
    const first = await createContact(c, 'contact-3', invalid);
    expect(first.status).toBe(422);
    const again = await createContact(c, 'contact-3', invalid);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await readJson(again)).toEqual(await readJson(first));
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE, with nothing created, while another transaction is storing the key, and runs once it has rolled back', async () => {
    const c = await caller('at-commit-in-use');
    // What a concurrent request's transaction holds from its store to its commit.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = withTransaction(app.deps.db, async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended(concat_ws('|', 'idempotency_keys', $1::text, $2::boolean, $3::text), 0))`, [
        c.userId,
        c.livemode,
        'contact-4',
      ]);
      held();
      await released;
      throw new Error('rolled back');
    }).catch(() => undefined);
    await holding;
    const inUse = await createContact(c, 'contact-4');
    expect(inUse.status).toBe(409);
    expect(await readJson(inUse)).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(inUse.headers.get('retry-after')).toBe('1');
    expect(await contactIds(c)).toEqual([]);
    release();
    await holder;
    const after = await createContact(c, 'contact-4');
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(await contactIds(c)).toHaveLength(1);
  });

  it('lets 20 concurrent identical requests from four sessions create exactly one contact', async () => {
    const c = await caller('at-commit-race');
    const email = (await readJson<{ email: string }>(await app.fetch('/api/v1/me', { headers: bearer(c.token) }))).email;
    // Four sessions of one user (one session's 20 writes at once would meet its rate limit): they
    // share the key, not its answers.
    const tokens = [c.token, ...(await Promise.all([1, 2, 3].map(() => sessionToken(app, email))))];
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await createContact(c, 'contact-5', GRACE, tokens[i % 4]);
        const body = await readJson<{ id?: string; code?: string }>(res);
        return { session: i % 4, status: res.status, id: body.id, code: body.code, replayed: res.headers.get('idempotent-replayed') === 'true' };
      }),
    );
    expect(answers.filter((a) => a.status === 429)).toEqual([]);
    const ids = await contactIds(c);
    expect(ids).toHaveLength(1);
    const winners = new Set(answers.filter((a) => a.status === 201).map((a) => a.session));
    expect(winners.size).toBe(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.id).toBe(ids[0]);
      else if (winners.has(answer.session)) expect(answer.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      else expect(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED']).toContain(answer.code);
    }
    expect(answers.filter((a) => a.status === 201 && !a.replayed)).toHaveLength(1);
  });

  it("stores keys and bodies with quotes, backslashes and SQL in them as they are, written into its query as hexadecimal", async () => {
    const c = await caller('at-commit-hostile');
    const key = `k'); DROP TABLE contacts; --\\'"`;
    const body = { ...GRACE, last_name: "O'Brien \\'); COMMIT; --", city: 'Zürich ☃' };
    const first = await createContact(c, key, body);
    expect(first.status).toBe(201);
    const created = await readJson<{ id: string; last_name: string; city: string }>(first);
    expect([created.last_name, created.city]).toEqual([body.last_name, body.city]);
    const again = await createContact(c, key, body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await readJson(again)).toEqual(created);
    const { rows } = await app.deps.db.query<{ key: string; method: string; path: string }>(
      'SELECT key, method, path FROM idempotency_keys WHERE user_id = $1 AND key = $2',
      [c.userId, key],
    );
    expect(rows).toEqual([{ key, method: 'POST', path: `/api/v1/orgs/${c.orgId}/contacts` }]);
    expect(await contactIds(c)).toEqual([created.id]);
  });

  it('claims the key in the transaction that creates the contact, in one query with its COMMIT and no statement of its own before it', async () => {
    const c = await caller('at-commit-statements');
    let status = 0;
    const statements = await statementsOf([app.deps.db, app.deps.claimsDb], async () => {
      const res = await createContact(c, 'contact-6');
      status = res.status;
      await readJson(res);
    });
    expect(status).toBe(201);
    const begin = statements.indexOf('BEGIN');
    const keyStatements = statements.flatMap((text, i) => (text.includes('idempotency_key') ? [i] : []));
    expect(keyStatements, statements.join('\n')).toHaveLength(1);
    expect(keyStatements[0]).toBeGreaterThan(begin);
    // The last query of the request: the key's statement and the COMMIT, one round trip.
    expect(keyStatements[0], statements.join('\n')).toBe(statements.length - 1);
    expect(statements.at(-1)).toMatch(/^SELECT store_answered_idempotency_key\(convert_from\(decode\('[0-9a-f]+', 'hex'\), 'UTF8'\)::jsonb\); COMMIT$/);
  });
});
