import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, sessionToken, uniqueEmail, type CreatedKey } from '../../../test/support/actors.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { startFakeGithub, type FakeGithub, type SigningKey } from '../../../test/support/fakeGithub.js';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtpSink.js';
import { createTestNamespace } from '../../../test/support/temporalNamespace.js';
import { checksumOf, hashApiKey } from '../../auth/apiKeyFormat.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { ensureTestSchedules } from '../../../test/support/schedules.js';
import { ensureSchedules, scheduleId } from '../../worker/schedules.js';
import type { LeakedKeyResult, LeakScanSummary } from './leaks.contract.js';
import type { CodeSearchItem } from './githubCodeSearch.js';
import { encryptedDataConverter } from '../../temporal/payloadCodec.js';
import { recordHistory } from '../../../test/support/histories.js';

const MAIL_DOMAIN = 'domains.test';
const GITHUB_TOKEN = 'ghp_leakScanTestToken';

let app: TestApp;
let github: FakeGithub;
let smtp: SmtpSink;

beforeAll(async () => {
  [github, smtp] = await Promise.all([startFakeGithub(), startSmtpSink()]);
  const namespace = await createTestNamespace('leaks');
  app = await startTestApp({
    worker: true,
    env: {
      TEMPORAL_NAMESPACE: namespace,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN,
      SMTP_URL: smtp.url,
      MAIL_FROM: `Domain Service Security <security@${MAIL_DOMAIN}>`,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), smtp?.close()]);
});

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

interface Owner {
  email: string;
  session: string;
}

async function owner(label: string): Promise<Owner> {
  const email = uniqueEmail(label);
  return { email, session: await sessionToken(app, email, `Owner ${label}`) };
}

async function keyOf(who: Owner, mode: 'live' | 'test', name = `${mode} deploy key`): Promise<CreatedKey> {
  return createKey(app, who.session, { name, scopes: ['keys:read'], mode });
}

interface Alert {
  token: string;
  type: string;
  url: string;
  source?: string;
}

function alertOf(key: { key: string }, url = `https://github.com/octo/app/blob/${Math.random().toString(16).slice(2)}/config.js`): Alert {
  return { token: key.key, type: 'domain_service_api_key', url, source: 'content' };
}

async function postAlert(
  alerts: Alert[],
  options: { signWith?: SigningKey; identifier?: string; sendBody?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = JSON.stringify(alerts);
  const signer = options.signWith ?? github.keys[github.keys.length - 1]!;
  return app.fetch('/api/v1/secret-scanning/github', {
    method: 'POST',
    headers: options.headers ?? {
      'content-type': 'application/json',
      'github-public-key-identifier': options.identifier ?? signer.identifier,
      'github-public-key-signature': github.sign(body, signer),
    },
    body: options.sendBody ?? body,
  });
}

const me = (token: string) => app.fetch('/api/v1/me', { headers: bearer(token) });

async function workflowResult<T>(workflowId: string): Promise<T> {
  return (await app.deps.temporal.client.workflow.getHandle(workflowId).result()) as T;
}

async function keyRow(id: string) {
  const { rows } = await app.deps.db.query<{ status: string; revoked_reason: string | null; revoked_source_url: string | null }>(
    'SELECT status, revoked_reason, revoked_source_url FROM api_keys WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

async function replays(workflowId: string, recordAs?: string): Promise<void> {
  if (recordAs) await recordHistory(app, workflowId, recordAs);
  const history = await app.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId)).resolves.toBeUndefined();
}

/** A token of the right shape whose checksum does not hold. */
function lookAlike(mode: 'live' | 'test' = 'live'): string {
  const body = `svc_${mode}_${'Ab3'.repeat(10)}${Math.random().toString(36).slice(2, 4).padEnd(2, 'x')}`;
  const good = checksumOf(body);
  const bad = good.slice(0, 5) + (good[5] === 'Z' ? 'Y' : 'Z');
  return body + bad;
}

/** A well-formed token (checksum holds) that is nobody's key. */
function unknownButWellFormed(): string {
  const body = `svc_live_${'Q9'.repeat(15)}${Math.random().toString(36).slice(2, 4).padEnd(2, 'q')}`;
  return body + checksumOf(body);
}

describe('POST /api/v1/secret-scanning/github', () => {
  it('a signed alert revokes the live key at once, e-mails the owner where it was found, and labels every token', async () => {
    const alice = await owner('alice');
    const key = await keyOf(alice, 'live', 'CI deploy');
    expect((await me(key.key)).status).toBe(200); // now cached by the api's key verifier

    const alert = alertOf(key);
    const fake = lookAlike();
    const res = await postAlert([alert, { token: fake, type: 'domain_service_api_key', url: alert.url }]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { token_hash: sha256Hex(key.key), token_type: 'domain_service_api_key', label: 'true_positive' },
      { token_hash: sha256Hex(fake), token_type: 'domain_service_api_key', label: 'false_positive' },
    ]);

    const result = await workflowResult<LeakedKeyResult>(`revoke-key:${key.id}`);
    expect(result).toMatchObject({ outcome: 'revoked', notified: true, messageId: `<revoke-key.${key.id}@${MAIL_DOMAIN}>` });

    const refused = await me(key.key);
    expect(refused.status).toBe(401);
    expect((await readJson<MessageErrorBody>(refused)).code).toBe('API_KEY_REVOKED');
    expect(await keyRow(key.id)).toEqual({ status: 'revoked', revoked_reason: 'found in public source code', revoked_source_url: alert.url });
    const listed = await readJson<{ data: { id: string; status: string; revoked_reason: string }[] }>(
      await app.fetch('/api/v1/me/api-keys', { headers: bearer(alice.session) }),
    );
    expect(listed.data.find((k) => k.id === key.id)).toMatchObject({ status: 'revoked', revoked_reason: 'found in public source code' });
    const audit = await listAuditEventsForTarget(app.deps.db, 'api_key', key.id);
    expect(audit.filter((e) => e.action === 'api_key.revoked')).toEqual([
      expect.objectContaining({ data: { reason: 'found in public source code', source_url: alert.url }, actorUserId: null }),
    ]);

    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(alice.email));
    expect(mail.messageId).toBe(result.messageId);
    expect(mail.subject).toContain('CI deploy');
    expect(mail.subject).toContain('revoked');
    expect(mail.text).toContain(alert.url);
    expect(mail.text).toContain(key.prefix);
    expect(mail.text).toMatch(/Create a new live key/);
    expect(mail.text).toMatch(/Deploy it/);
    expect(mail.text).toMatch(/Delete the old key/);
    expect(mail.raw).not.toContain(key.key);
    expect(mail.raw).not.toContain(key.key.slice(key.prefix.length));

    await replays(`revoke-key:${key.id}`, 'revoke-leaked-live-key');
  });

  it('a bad signature, an unknown key identifier, a tampered body or missing headers are refused and change nothing', async () => {
    const bob = await owner('bob');
    const key = await keyOf(bob, 'live');
    const alerts = [alertOf(key)];
    const signed = JSON.stringify(alerts);
    const forger = github.unpublishedKey();
    const published = github.keys[0]!;

    const attempts: Response[] = [
      // Signed by a key GitHub never published, under the identifier of one it did.
      await postAlert(alerts, { signWith: forger, identifier: published.identifier }),
      // An identifier GitHub does not list.
      await postAlert(alerts, { signWith: forger }),
      // A genuine signature over a different body.
      await postAlert(alerts, { sendBody: signed.replace('config.js', 'other.js') }),
      // A signature that is not even base64 DER.
      await app.fetch('/api/v1/secret-scanning/github', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'github-public-key-identifier': published.identifier, 'github-public-key-signature': 'bm90IGEgc2lnbmF0dXJl' },
        body: signed,
      }),
      // No signature headers at all.
      await app.fetch('/api/v1/secret-scanning/github', { method: 'POST', headers: { 'content-type': 'application/json' }, body: signed }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(401);
      expect((await readJson<MessageErrorBody>(res)).code).toBe('INVALID_SIGNATURE');
    }

    expect((await me(key.key)).status).toBe(200);
    expect((await keyRow(key.id)).status).toBe('active');
    // Every request has been answered and none started the workflow that would e-mail the owner, so no e-mail can follow.
    await expect(app.deps.temporal.client.workflow.getHandle(`revoke-key:${key.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await listAuditEventsForTarget(app.deps.db, 'api_key', key.id)).toEqual([expect.objectContaining({ action: 'api_key.created' })]);
    expect(smtp.to(bob.email)).toEqual([]);
  });

  it('the same alert twice (even at once) revokes once and mails once', async () => {
    const carol = await owner('carol');
    const key = await keyOf(carol, 'live');
    const alerts = [alertOf(key)];
    const answers = await Promise.all([postAlert(alerts), postAlert(alerts)]);
    for (const res of answers) expect((await readJson<{ label: string }[]>(res))[0]!.label).toBe('true_positive');
    const handle = app.deps.temporal.client.workflow.getHandle(`revoke-key:${key.id}`);
    await handle.result();
    const { runId } = await handle.describe();

    const again = await postAlert(alerts);
    expect((await readJson<{ label: string }[]>(again))[0]!.label).toBe('true_positive'); // still our key, already handled
    // The alert was answered and started no new run; the one run has ended, its e-mail sent, so the count is final.
    const latest = await handle.describe();
    expect(latest.runId).toBe(runId);
    expect(latest.status.name).toBe('COMPLETED');
    expect(smtp.to(carol.email)).toHaveLength(1);
    const audit = await listAuditEventsForTarget(app.deps.db, 'api_key', key.id);
    expect(audit.filter((e) => e.action === 'api_key.revoked')).toHaveLength(1);
  });

  it('the owner e-mail is retried by Temporal until the SMTP server accepts it', async () => {
    const dave = await owner('dave');
    const key = await keyOf(dave, 'live');
    smtp.refuseNext(2);
    const refusedBefore = smtp.refused;
    expect((await postAlert([alertOf(key)])).status).toBe(200);
    const result = await workflowResult<LeakedKeyResult>(`revoke-key:${key.id}`);
    expect(result.notified).toBe(true);
    expect(smtp.refused - refusedBefore).toBe(2);
    expect(smtp.to(dave.email)).toHaveLength(1);
    expect(smtp.to(dave.email)[0]!.messageId).toBe(`<revoke-key.${key.id}@${MAIL_DOMAIN}>`);
  });

  it('a test key found is reported and its owner told, but it stays active', async () => {
    const erin = await owner('erin');
    const key = await keyOf(erin, 'test', 'staging key');
    const alert = alertOf(key);
    const res = await postAlert([alert]);
    expect(await res.json()).toEqual([{ token_hash: sha256Hex(key.key), token_type: alert.type, label: 'true_positive' }]);
    const result = await workflowResult<LeakedKeyResult>(`leaked-test-key:${key.id}`);
    expect(result).toMatchObject({ outcome: 'reported', notified: true });

    expect((await me(key.key)).status).toBe(200);
    expect((await keyRow(key.id)).status).toBe('active');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(erin.email));
    expect(mail.subject).toContain('test API key');
    expect(mail.text).toContain(alert.url);
    // The mail says what the key reaches and what it does not, for the scopes it holds (keys:read).
    expect(mail.text).toContain('Test keys are reported, not revoked: this key still works until you delete it');
    expect(mail.text).toContain('Its scopes: keys:read. With them it can:\n  - read your profile (name and e-mail address)\n  - list your test keys');
    expect(mail.text).not.toContain('register, transfer');
    expect(mail.text).toContain('  - see or change anything in live mode');
    expect(mail.text).toContain('  - reach the registrar or the DNS provider, or spend real money');
    expect(mail.text).toContain('  - create organisations, or add, remove or change the role of members (that needs a live key or a\n    signed-in session)');
    expect(mail.text).not.toContain(key.key);
    // What it says holds: with keys:read, the leaked test key lists erin's test keys, never her live ones.
    const live = await keyOf(erin, 'live', 'production key');
    const listed = await readJson<{ data: { id: string; mode: string }[] }>(await app.fetch('/api/v1/me/api-keys', { headers: bearer(key.key) }));
    expect(listed.data.map((k) => k.id)).toContain(key.id);
    expect(listed.data.map((k) => k.id)).not.toContain(live.id);
    expect(new Set(listed.data.map((k) => k.mode))).toEqual(new Set(['test']));
    const audit = await listAuditEventsForTarget(app.deps.db, 'api_key', key.id);
    expect(audit.map((e) => e.action)).toEqual(['api_key.created', 'api_key.leak_reported']);
  });

  it('look-alike tokens with bad checksums never reach the database', async () => {
    const fakes = [lookAlike('live'), lookAlike('test'), 'svc_live_tooShort', 'ghp_somethingElse'];
    const spy = vi.spyOn(app.deps.db, 'query');
    try {
      const res = await postAlert(fakes.map((token) => ({ token, type: 'domain_service_api_key', url: 'https://github.com/a/b' })));
      expect(res.status).toBe(200);
      expect((await readJson<{ label: string }[]>(res)).map((a) => a.label)).toEqual(fakes.map(() => 'false_positive'));
      const keyLookups = spy.mock.calls.filter(([sql]) => String(sql).includes('secret_hash'));
      expect(keyLookups).toEqual([]);

      // The control: a token whose checksum holds is looked up (and is nobody's key).
      const wellFormed = unknownButWellFormed();
      const control = await postAlert([{ token: wellFormed, type: 'domain_service_api_key', url: 'https://github.com/a/b' }]);
      expect((await readJson<{ label: string }[]>(control))[0]!.label).toBe('false_positive');
      expect(spy.mock.calls.filter(([sql]) => String(sql).includes('secret_hash'))).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('scheduled leak scan', () => {
  function item(index: number, fragment: string): CodeSearchItem {
    return {
      path: `src/file${index}.js`,
      html_url: `https://github.com/someone/project${index}/blob/main/src/file${index}.js`,
      repository: { full_name: `someone/project${index}` },
      text_matches: [{ fragment }],
    };
  }

  // Two scans, a revocation and its mail, waiting on Temporal's schedule: 16 s on a busy machine.
  it('the leak-scan schedule pages through code search, honours a rate limit, revokes a key found on page 2, and skips it next time', { timeout: 60_000 }, async () => {
    const frank = await owner('frank');
    const key = await keyOf(frank, 'live', 'leaky service');
    const fake = lookAlike();
    const fakeHash = hashApiKey(app.deps.keyHashSecret, fake);
    const items = Array.from({ length: 150 }, (_, i) => item(i, `const apiKey = "${i % 7 === 0 ? fake : 'svc_live_'}"; // example ${i}`));
    items[120] = item(120, `DOMAIN_API_KEY=${key.key}\n# do not commit`);
    github.setSearchResults(items);
    github.rateLimitOnce(2, 1);
    github.searchRequests.length = 0;

    const { client } = app.deps.temporal;
    const ensured = await ensureTestSchedules(client, app.deps.config);
    onTestFinished(ensured.remove);
    await ensureSchedules(client, app.deps.config);
    const schedule = client.schedule.getHandle(scheduleId('leak-scan', app.deps.config));
    const description = await schedule.describe();
    expect(description.spec.intervals).toMatchObject([{ every: app.deps.config.leakScanIntervalMs }]);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.action).toMatchObject({ workflowType: 'leakScanWorkflow', taskQueue: app.deps.config.temporal.taskQueue });
    // Its interval runs fall on the clock's quarter hours: paused, it runs only when triggered, so the
    // requests counted below are those of the one run.
    await schedule.pause('the test triggers the one run it counts');

    const spy = vi.spyOn(app.deps.db, 'query');
    let summary: LeakScanSummary;
    try {
      await schedule.trigger();
      const runWorkflowId = await waitForScheduledRun(schedule, description.info.recentActions.length);
      summary = (await client.workflow.getHandle(runWorkflowId).result()) as LeakScanSummary;
      await replays(runWorkflowId, 'leak-scan');
      // The look-alike was in the results on both pages, and never went near the database.
      const touched = spy.mock.calls.filter(([, params]) =>
        JSON.stringify(params ?? []).includes(fakeHash.toString('hex')) || (params as unknown[] | undefined)?.some((p) => Buffer.isBuffer(p) && p.equals(fakeHash)),
      );
      expect(touched).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    expect(summary).toMatchObject({ pages: 2, wellFormed: 1, unseen: 1, keysFound: 1, workflowsStarted: 1 });
    expect(summary.tokens).toBeGreaterThan(1);

    // Page 1 once; page 2 refused once (403, retry-after 1 s), then asked again no sooner than that.
    const requests = github.searchRequests.map((r) => ({ page: r.page, status: r.status }));
    expect(requests).toEqual([
      { page: 1, status: 200 },
      { page: 2, status: 403 },
      { page: 2, status: 200 },
    ]);
    const [, limited, retried] = github.searchRequests;
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(900);
    for (const request of github.searchRequests) {
      expect(request).toMatchObject({ query: 'svc_live_', perPage: 100, accept: 'application/vnd.github.text-match+json', authorization: `Bearer ${GITHUB_TOKEN}` });
    }

    const result = await workflowResult<LeakedKeyResult>(`revoke-key:${key.id}`);
    expect(result.outcome).toBe('revoked');
    const refused = await me(key.key);
    expect((await readJson<MessageErrorBody>(refused)).code).toBe('API_KEY_REVOKED');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(frank.email));
    expect(mail.text).toContain(items[120]?.html_url);
    expect(mail.text).toContain('our scan of public code');

    const { rows } = await app.deps.db.query<{ token_hash: string; source_url: string }>('SELECT token_hash, source_url FROM leak_scan_seen');
    expect(rows).toContainEqual(expect.objectContaining({ token_hash: hashApiKey(app.deps.keyHashSecret, key.key).toString('hex'), source_url: items[120]?.html_url }));
    expect(rows.map((r) => r.token_hash)).not.toContain(fakeHash.toString('hex'));

    // A second scan over the same results finds nothing new to do.
    const rescan = (await client.workflow.execute('leakScanWorkflow', {
      workflowId: `leak-scan-rerun-${Date.now()}`,
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [],
    })) as LeakScanSummary;
    expect(rescan).toMatchObject({ pages: 2, wellFormed: 1, unseen: 0, keysFound: 0, workflowsStarted: 0 });
    expect(smtp.to(frank.email)).toHaveLength(1);
  });
});

/** The workflow id of the schedule's next run after `seen` recorded actions. */
async function waitForScheduledRun(schedule: { describe(): Promise<{ info: { recentActions: { action: { workflow: { workflowId: string } } }[] } }> }, seen: number) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { info } = await schedule.describe();
    if (info.recentActions.length > seen) return info.recentActions[info.recentActions.length - 1]!.action.workflow.workflowId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the schedule did not start a run');
}
