import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dkimSign, dkimVerify } from 'mailauth';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson, type FieldErrorBody } from '../support/http.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';
import { SRS_DOMAIN, startMailForwarding, swaks, type MailForwarding } from '../support/mailForwarding.js';
import { randomBase62 } from '../../src/ids.js';

/**
 * E-mail forwarding on the real parts (docs/operations.md, E-mail forwarding): forwards made through
 * the API, Debian's Postfix reading them through the read-only role, postsrsd rewriting the envelope,
 * swaks sending as a remote mail server would, and the development mailbox as the only place
 * test-mode mail reaches.
 */
let app: TestApp;
let mail: MailForwarding;
// Enterprise (dnsCustomer's plan) is 20× the free hour: 40 messages a domain an hour here.
const FREE_PER_HOUR = 2;
beforeAll(async () => {
  app = await startTestApp();
  mail = await startMailForwarding(app, { freePerHour: FREE_PER_HOUR });
});
afterAll(async () => {
  await mail?.close();
  await app?.close();
});

async function forwardingDomain(): Promise<{ c: Customer; domain: string; create: (body: unknown) => Promise<Response> }> {
  const c = await dnsCustomer(app, 'test');
  const domain = await insertActiveDomain(app, c, { name: `mailfwd-${randomBase62(8).toLowerCase()}.com` });
  const create = (body: unknown) => app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/email-forwards`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify(body) });
  return { c, domain, create };
}

/** A message signed with DKIM by a key of the test's own, for `d=sender.example.net`. */
async function signedMessage(to: string): Promise<{ file: string; publicKey: string; raw: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const body = `From: Alice <alice@sender.example.net>\r\nTo: ${to}\r\nSubject: Forward me ${randomBase62(6)}\r\nMessage-ID: <${randomBase62(12)}@sender.example.net>\r\nDate: ${new Date().toUTCString()}\r\n\r\nHello through the forwarder.\r\n`;
  const signer = { signingDomain: 'sender.example.net', selector: 'test', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  // mailauth signs what `signatureData` lists (its types also ask for one signer at the top).
  const signed = await dkimSign(body, { canonicalization: 'relaxed/relaxed', algorithm: 'rsa-sha256', ...signer, signatureData: [signer] });
  expect(signed.errors).toEqual([]);
  expect(signed.signatures).toMatch(/^DKIM-Signature: /);
  const raw = signed.signatures + body;
  const file = path.join(os.tmpdir(), `mailfwd-${randomBase62(8)}.eml`);
  await writeFile(file, raw);
  const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return { file, publicKey: `v=DKIM1; k=rsa; p=${der}`, raw };
}

/** The RCPT reply swaks printed: `<~~ 250 …` or `<** 550 …`, the line after `~> RCPT TO:<address>`. */
function rcptReplies(transcript: string): string[] {
  const lines = transcript.split('\n');
  return lines.flatMap((line, i) => (/^ *-> RCPT TO:/.test(line) ? [lines[i + 1]?.trim() ?? ''] : []));
}

describe('e-mail forwards through the API', () => {
  it('sets MX, SPF and DMARC with the first forward and takes them away with the last', async () => {
    const { c, domain, create } = await forwardingDomain();
    const first = await create({ local_part: 'Hello', to: ['someone@example.org'] });
    expect(first.status).toBe(201);
    const body = await readJson<{ id: string; address: string; records: { type: string; name: string; content: string }[] }>(first);
    expect(body.address).toBe(`hello@${domain}`);
    expect(body.records.map((r) => `${r.type} ${r.name} ${r.content}`).sort()).toEqual([`MX @ ${SRS_DOMAIN}`, 'TXT @ v=spf1 mx ~all', 'TXT _dmarc v=DMARC1; p=none']);
    const second = await create({ local_part: '*', to: ['other@example.org', 'third@example.net'] });
    expect(second.status).toBe(201);
    const secondBody = await readJson<{ id: string; records: unknown[] }>(second);
    expect(secondBody.records).toEqual([]);
    expect((await create({ local_part: 'hello', to: ['x@example.org'] })).status).toBe(409);

    const list = await readJson<{ data: { local_part: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/email-forwards`, { headers: bearer(c.key) }));
    expect(list.data.map((f) => f.local_part).sort()).toEqual(['*', 'hello']);

    const records = async () => (await readJson<{ data: { type: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records?limit=100`, { headers: bearer(c.key) }))).data.length;
    expect(await records()).toBe(3);
    const remove = (id: string) => app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/email-forwards/${id}`, { method: 'DELETE', headers: bearer(c.key) });
    expect((await remove(body.id)).status).toBe(204);
    expect(await records()).toBe(3);
    expect((await remove(secondBody.id)).status).toBe(204);
    expect(await records()).toBe(0);
    expect((await remove(secondBody.id)).status).toBe(404);
  });

  it('refuses an address that is not one with 422 EMAIL_FORWARD_INVALID, every problem at its place', async () => {
    const { create } = await forwardingDomain();
    const res = await create({ local_part: 'a%b', to: ['not-an-address', `x@${SRS_DOMAIN}`, 'ok@example.org', 'ok@example.org', 'user@localhost'] });
    expect(res.status).toBe(422);
    const body = await readJson<FieldErrorBody & { code: string }>(res);
    expect(body.code).toBe('EMAIL_FORWARD_INVALID');
    expect(body.detail.map((e) => e.loc.join('.'))).toEqual(['body.local_part', 'body.to.0', 'body.to.1', 'body.to.3', 'body.to.4']);
  });

  it('holds 100 forwards a domain on the free plan', async () => {
    const { c, domain, create } = await forwardingDomain();
    await app.deps.db.query(`UPDATE organizations SET plan = 'free' WHERE id = $1`, [c.org.id]);
    expect((await create({ local_part: 'first', to: ['a@example.org'] })).status).toBe(201);
    await app.deps.db.query(
      `INSERT INTO email_forwards (id, domain_id, livemode, local_part, recipients)
       SELECT 'emf_bulk' || n || $2, d.id, false, 'bulk' || n, ARRAY['a@example.org'] FROM domains d, generate_series(1, 99) n WHERE d.name = $1`,
      [domain, randomBase62(6)],
    );
    const refused = await create({ local_part: 'one-more', to: ['a@example.org'] });
    expect(refused.status).toBe(409);
    expect((await readJson<{ code: string }>(refused)).code).toBe('EMAIL_FORWARD_LIMIT');
  });
});

describe('Postfix forwarding', () => {
  it('forwards with an SRS envelope sender, the DKIM signature still verifying, and returns a bounce to the original sender', async () => {
    const { domain, create } = await forwardingDomain();
    expect((await create({ local_part: 'hello', to: ['someone@example.org'] })).status).toBe(201);
    const message = await signedMessage(`hello@${domain}`);
    const sent = await swaks(mail.port, ['--from', 'alice@sender.example.net', '--to', `hello@${domain}`, '--data', message.file]);
    expect(sent.code, sent.transcript).toBe(0);

    const forwarded = await mail.mailbox.waitFor((m) => m.envelopeTo.includes('someone@example.org') && m.raw.includes('Hello through the forwarder'), 10_000);
    expect(forwarded.envelopeFrom).toMatch(new RegExp(`^SRS0[=+-][^@]+=sender\\.example\\.net=alice@${SRS_DOMAIN.replace(/\./g, '\\.')}$`, 'i'));
    const verified = await dkimVerify(forwarded.raw, {
      resolver: (name: string, type: string) => {
        if (type === 'TXT' && name === 'test._domainkey.sender.example.net') return Promise.resolve([[message.publicKey]]);
        return Promise.reject(Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' }));
      },
    });
    expect(verified.results.map((r) => r.status.result), `${JSON.stringify(verified.results)}\n${forwarded.raw}`).toEqual(['pass']);

    // A bounce of the forwarded message comes back to the SRS address and goes to Alice.
    const bounce = await swaks(mail.port, ['--from', '<>', '--to', forwarded.envelopeFrom, '--header', 'Subject: Undelivered Mail Returned to Sender', '--body', 'bounced']);
    expect(bounce.code, bounce.transcript).toBe(0);
    const returned = await mail.mailbox.waitFor((m) => m.envelopeTo.includes('alice@sender.example.net') && m.raw.includes('bounced'), 10_000);
    expect(returned.envelopeFrom).toBe('');

    await mail.log.poll();
    const metrics = await mail.registry.getMetricsAsJSON();
    const value = (name: string) => metrics.find((m) => m.name === name)?.values.find((v) => v.labels.mode === 'test')?.value ?? 0;
    expect(value('mail_forwarding_accepted_total')).toBeGreaterThanOrEqual(2);
    expect(value('mail_forwarding_forwarded_total')).toBeGreaterThanOrEqual(2);
  });

  it('refuses all 20 open-relay probes at RCPT, and none reaches the mailbox', async () => {
    const { domain, create } = await forwardingDomain();
    expect((await create({ local_part: 'hello', to: ['someone@example.org'] })).status).toBe(201);
    const probes = [
      'victim@other.example.org',
      'victim@OTHER.EXAMPLE.ORG',
      'victim@other.example.org.',
      'postmaster@other.example.org',
      'nobody@' + domain,
      'victim%other.example.org@' + domain,
      'victim%other.example.org@' + SRS_DOMAIN,
      'other.example.org!victim@' + domain,
      'victim@other.example.org@' + domain,
      '"victim@other.example.org"@' + domain,
      '@' + domain + ':victim@other.example.org',
      'victim@[127.0.0.1]',
      'victim@[10.0.0.1]',
      'victim@localhost',
      'victim@' + SRS_DOMAIN,
      'SRS0=bad@' + SRS_DOMAIN + '.other.example.org',
      'hello@sub.' + domain,
      'hello@' + domain + '.other.example.org',
      '<>',
      'x'.repeat(300) + '@' + domain,
    ];
    expect(probes).toHaveLength(20);
    const before = mail.mailbox.messages.length;
    for (const probe of probes) {
      const res = await swaks(mail.port, ['--from', 'spammer@sender.example.net', '--to', probe, '--body', 'relay me']);
      const replies = rcptReplies(res.transcript);
      expect(replies, `${probe}\n${res.transcript}`).toHaveLength(1);
      expect(replies[0], `${probe}\n${res.transcript}`).toMatch(/^<\*\* 5\d\d /);
    }
    // Postfix has delivered what it took before the probes; the probes were refused before DATA, so nothing more can come.
    expect(mail.mailbox.messages.length).toBe(before);
    await mail.log.poll();
    const refused = (await mail.registry.getMetricsAsJSON()).find((m) => m.name === 'mail_forwarding_refused_total')!;
    // Postfix logs each refusal of a well-formed address (`NOQUEUE: reject`); a malformed one (`<>`) only as a syntax error.
    expect(refused.values.find((v) => v.labels.mode === 'test' && v.labels.reason === 'recipient')!.value).toBeGreaterThanOrEqual(18);
  }, 60_000);

  it('answers 451 once a domain has been sent its plan’s messages this hour', async () => {
    const { domain, create } = await forwardingDomain();
    expect((await create({ local_part: '*', to: ['catch@example.org'] })).status).toBe(201);
    const limit = FREE_PER_HOUR * 20;
    const recipients = Array.from({ length: limit + 1 }, (_, i) => `r${i}@${domain}`);
    const res = await swaks(mail.port, ['--from', 'bulk@sender.example.net', '--to', recipients.join(','), '--body', 'many']);
    const replies = rcptReplies(res.transcript);
    expect(replies.slice(0, limit).every((r) => r.startsWith('<~  250') || r.startsWith('<-  250')), res.transcript).toBe(true);
    expect(replies[limit]).toMatch(/^<\*\* 451 4\.7\.1/);
  });
});
