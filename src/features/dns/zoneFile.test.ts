import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody } from '../../../test/support/http.js';
import { namedCheckzone } from '../../../test/support/namedCheckzone.js';
import { NAME_LOCKS_MAX } from './dnsRecords.repository.js';

/**
 * Zone files in test mode: export (`text/dns`, checked by BIND's named-checkzone), import with
 * `Dry-Run`, merge and replace, a second import that changes nothing, and a round trip between two
 * domains. Test mode serves nothing, so the export's SOA and NS are the ones the service writes.
 */
interface ImportResult {
  create: { line: number; id: string | null; type: string; name: string; content: string; ttl: number; priority: number | null }[];
  update: { line: number; id: string; type: string; name: string; content: string; ttl: number; previous: { content: string; ttl: number } }[];
  delete: { id: string; type: string; name: string; content: string }[];
  skipped: { line: number; type: string; name: string; reason: string }[];
}

let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await dnsCustomer(app, 'test');
});
afterAll(async () => {
  await app?.close();
});

async function newDomain(): Promise<{ name: string; base: string }> {
  const name = await insertActiveDomain(app, c);
  return { name, base: `/api/v1/orgs/${c.org.id}/domains/${name}` };
}

async function batch(base: string, records: Record<string, unknown>[]): Promise<void> {
  const res = await app.fetch(`${base}/records/batch`, {
    method: 'POST',
    headers: jsonHeaders(c.key),
    body: JSON.stringify({ operations: records.map((record) => ({ op: 'create', record })) }),
  });
  if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
}

async function exportZone(base: string): Promise<string> {
  const res = await app.fetch(`${base}/zone`, { headers: bearer(c.key) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/dns/);
  return res.text();
}

const importZone = (base: string, text: string, options: { mode?: string; dryRun?: boolean; headers?: Record<string, string> } = {}) =>
  app.fetch(`${base}/zone${options.mode ? `?mode=${options.mode}` : ''}`, {
    method: 'POST',
    headers: { ...bearer(c.key), 'content-type': 'text/dns', ...(options.dryRun ? { 'dry-run': 'true' } : {}), ...options.headers },
    body: text,
  });

async function imported(base: string, text: string, options: Parameters<typeof importZone>[2] = {}): Promise<ImportResult> {
  const res = await importZone(base, text, options);
  if (res.status !== 200) throw new Error(`import refused: ${res.status} ${await res.text()}`);
  return readJson<ImportResult>(res);
}

/** One record of every type served, with the awkward cases: a TXT over 255 characters with quotes, a delegation, SRV to ".". */
const EVERY_TYPE = [
  { type: 'A', name: '@', content: '192.0.2.1' },
  { type: 'A', name: 'www', content: '192.0.2.2', ttl: 300 },
  { type: 'AAAA', name: 'www', content: '2001:db8::2' },
  { type: 'CNAME', name: 'blog', content: 'hosting.example.net' },
  { type: 'MX', name: '@', content: 'mx1.example.net', priority: 10 },
  { type: 'MX', name: '@', content: 'mx2.example.net', priority: 20 },
  { type: 'TXT', name: '@', content: 'v=spf1 include:_spf.example.net -all' },
  { type: 'TXT', name: 'long', content: `say "hi" \\ ${'x'.repeat(300)}` },
  { type: 'NS', name: 'sub', content: 'ns1.example.org' },
  { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.net', priority: 10 },
  { type: 'SRV', name: '_none._tcp', content: '0 0 .', priority: 0 },
  { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' },
  { type: 'CAA', name: '@', content: '0 iodef "mailto:security@example.net"' },
  { type: 'A', name: '*.dev', content: '192.0.2.3' },
];

describe('zone files in test mode', () => {
  it('exports every record type as a master file named-checkzone accepts', async () => {
    const { name, base } = await newDomain();
    await batch(base, EVERY_TYPE);
    const text = await exportZone(base);
    expect(text).toContain(`$ORIGIN ${name}.`);
    expect(text).toMatch(new RegExp(`^@ 3600 IN SOA ns1\\.example\\.net\\. hostmaster\\.${name.replace(/\./g, '\\.')}\\. \\d+ 10800 3600 604800 3600$`, 'm'));
    expect(text).toContain('@ 3600 IN NS ns1.example.net.\n@ 3600 IN NS ns2.example.net.\n');
    expect(text).toContain('www 300 IN A 192.0.2.2\n');
    expect(text).toContain('@ 3600 IN MX 10 mx1.example.net.\n');
    expect(text).toContain('_sip._tcp 3600 IN SRV 10 5 5060 sip.example.net.\n');
    expect(text).toContain(`long 3600 IN TXT "say \\"hi\\" \\\\ ${'x'.repeat(244)}" "${'x'.repeat(56)}"\n`);
    const checked = await namedCheckzone(name, text);
    expect(checked.output).toContain('OK');
    expect(checked.code).toBe(0);
    // Every record comes back on import: the export is its own fixed point.
    expect(await imported(base, text)).toMatchObject({ create: [], update: [], delete: [] });
  });

  it('a dry run answers what would change and changes nothing', async () => {
    const { base } = await newDomain();
    await batch(base, [{ type: 'A', name: 'old', content: '192.0.2.9' }]);
    const before = await exportZone(base);
    const file = '$TTL 600\nwww A 192.0.2.1\nold A 192.0.2.9\n';
    const dry = await imported(base, file, { dryRun: true, mode: 'replace' });
    expect(dry.create).toEqual([{ line: 2, id: null, type: 'A', name: 'www', content: '192.0.2.1', ttl: 600, priority: null }]);
    expect(dry.update).toEqual([expect.objectContaining({ line: 3, name: 'old', ttl: 600, previous: { content: '192.0.2.9', ttl: 3600, priority: null } })]);
    expect(await exportZone(base)).toBe(before);
    // The same checks as the real import: a CNAME beside an A is refused in a dry run too.
    const conflict = await importZone(base, '$TTL 600\nold CNAME x.example.net.\nold A 192.0.2.1\n', { dryRun: true });
    expect(conflict.status).toBe(409);
    expect(await exportZone(base)).toBe(before);
  });

  it('merge keeps the records the file does not name; replace deletes them; a second import changes nothing', async () => {
    const { base } = await newDomain();
    await batch(base, [
      { type: 'A', name: 'keep', content: '192.0.2.1' },
      { type: 'A', name: 'www', content: '192.0.2.2' },
      { type: 'CNAME', name: 'docs', content: 'old.example.net' },
      { type: 'TXT', name: '@', content: 'old' },
    ]);
    const file = ['$ORIGIN @ORIGIN@.', '$TTL 3600', 'www A 192.0.2.2', '    A 192.0.2.3', 'docs CNAME new.example.net.', '@ 300 TXT "old"'].join('\n');
    const zone = base.split('/').pop()!;
    const text = file.replace('@ORIGIN@', zone);

    const merged = await imported(base, text);
    expect(merged.create.map((r) => `${r.line} ${r.name} ${r.type} ${r.content}`)).toEqual(['4 www A 192.0.2.3']);
    expect(merged.update.map((r) => `${r.line} ${r.name} ${r.type} ${r.content} ${r.ttl} (was ${r.previous.content} ${r.previous.ttl})`)).toEqual([
      '5 docs CNAME new.example.net 3600 (was old.example.net 3600)',
      '6 @ TXT old 300 (was old 3600)',
    ]);
    expect(merged.delete).toEqual([]);
    expect(merged.create[0]!.id).toMatch(/^rec_/);
    expect(await exportZone(base)).toContain('keep 3600 IN A 192.0.2.1');
    expect(await imported(base, text)).toMatchObject({ create: [], update: [], delete: [] });

    const replaced = await imported(base, text, { mode: 'replace' });
    expect(replaced.delete.map((r) => `${r.name} ${r.type} ${r.content}`)).toEqual(['keep A 192.0.2.1']);
    expect(replaced.create).toEqual([]);
    expect(await exportZone(base)).not.toContain('keep');
    expect(await imported(base, text, { mode: 'replace' })).toEqual({ create: [], update: [], delete: [], skipped: [] });
  });

  it('round trip: an export of one domain imported into another exports the same, but for the origin', async () => {
    const a = await newDomain();
    const b = await newDomain();
    await batch(a.base, EVERY_TYPE);
    const fromA = await exportZone(a.base);
    const dry = await imported(b.base, fromA, { dryRun: true });
    expect(dry.create).toHaveLength(EVERY_TYPE.length);
    expect(dry.skipped.map((s) => s.type)).toEqual(['SOA', 'NS', 'NS']);
    expect(await exportZone(b.base)).not.toContain('192.0.2.1');
    const real = await imported(b.base, fromA);
    expect(real.create.map(({ id: _id, ...r }) => r)).toEqual(dry.create.map(({ id: _id, ...r }) => r));
    const fromB = await exportZone(b.base);
    // The SOA serial is the time of the latest change, which differs between the two.
    const comparable = (text: string, zone: string) => text.replaceAll(zone, 'ORIGIN').replace(/(IN SOA \S+ \S+) \d+/, '$1 SERIAL');
    expect(comparable(fromB, b.name)).toBe(comparable(fromA, a.name));
  });

  it('answers 422 ZONE_FILE_INVALID naming each line and what is wrong; nothing changes', async () => {
    const { base } = await newDomain();
    const res = await importZone(base, '$TTL 300\nok A 192.0.2.1\nbad A 300.1.1.1\nx.example.org. A 192.0.2.1\nq TXT "open\n');
    expect(res.status).toBe(422);
    const body = await readJson<FieldErrorBody>(res);
    expect(body.code).toBe('ZONE_FILE_INVALID');
    expect(body.detail.map((d) => d.loc.join('.'))).toEqual(['body.line.4', 'body.line.5']);
    expect(body.detail[0]!.msg).toMatch(/^Line 4: .*outside the zone/);
    const records = await app.fetch(`${base}/records`, { headers: bearer(c.key) });
    expect((await readJson<{ data: unknown[] }>(records)).data).toEqual([]);
    // Once the file reads, each record is checked by its type's rules, with its line.
    const invalid = await readJson<FieldErrorBody>(await importZone(base, '$TTL 300\nok A 192.0.2.1\nbad A 300.1.1.1\n'));
    expect(invalid.detail).toEqual([{ loc: ['body', 'line', '3'], msg: 'Line 3: A bad: Must be an IPv4 address, e.g. 192.0.2.1', type: 'ipv4_invalid' }]);
  });

  it('takes the file as text/dns (or text/plain) only, and reports the types it does not import', async () => {
    const { base } = await newDomain();
    const json = await app.fetch(`${base}/zone`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ zone: 'www A 192.0.2.1' }) });
    expect(json.status).toBe(400);
    expect((await readJson<FieldErrorBody>(json)).detail[0]!.loc).toEqual(['header', 'content-type']);
    const res = await imported(base, '$TTL 300\nhost HINFO "pc" "linux"\nwww A 192.0.2.1\n', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    expect(res.create).toHaveLength(1);
    expect(res.skipped).toEqual([{ line: 2, type: 'HINFO', name: 'host', reason: expect.stringContaining('not served') as string }]);
    const mode = await importZone(base, 'www A 192.0.2.1', { mode: 'overwrite' });
    expect(mode.status).toBe(422);
  });

  it('imports more names than are locked one by one (the domain is locked instead), with an audit event for each record', async () => {
    const { name, base } = await newDomain();
    const count = NAME_LOCKS_MAX + 50;
    const file = `$TTL 300\n${Array.from({ length: count }, (_, i) => `h${i} A 192.0.2.${i % 250}`).join('\n')}\n`;
    const res = await importZone(base, file);
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    expect((await readJson<ImportResult>(res)).create).toHaveLength(count);
    expect(await exportZone(base)).toContain(`h${count - 1} 300 IN A 192.0.2.${(count - 1) % 250}\n`);
    const { rows } = await app.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_events WHERE request_id = $1 AND action = 'dns_record.created' AND data->>'domain' = $2`,
      [requestId, name],
    );
    expect(rows[0]!.n).toBe(count);
  });

  it('exports a zone of more records than one read holds: each record once, in zone-file order', async () => {
    const { name, base } = await newDomain();
    // Names with children, labels that begin longer labels, names of more than eight labels among
    // shorter ones, the apex, and several types at one name.
    const names = Array.from({ length: 700 }, (_, i) => [`h${i}`, `a.h${i % 9}`, `h${i % 9}-x`, `b.a.h${i % 5}`, `z${i % 7}.y.x.w.v.u.t.s.a.h${i % 5}`, `t.s.a.h${i % 5}`][i % 6]!);
    const file = [
      '$TTL 300',
      ...names.map((owner, i) => `${owner} A 192.0.2.${i % 250}`),
      ...names.slice(0, 600).map((owner, i) => `${owner} TXT "t${i}"`),
      ...Array.from({ length: 1_300 }, (_, i) => `@ TXT "apex ${i}"`),
      '@ MX 20 mx2.example.net.',
      '@ MX 10 mx1.example.net.',
    ].join('\n');
    const created = (await imported(base, `${file}\n`)).create.length;
    expect(created).toBeGreaterThan(2_500);
    const text = await exportZone(base);
    const records = text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith(';') && !line.startsWith('$') && !/ IN (SOA|NS) /.test(line))
      .map((line) => {
        const [owner, , , type, ...data] = line.split(' ');
        return { owner: owner!, type: type!, priority: type === 'MX' ? Number(data[0]) : 0, data: data.join(' ') };
      });
    expect(records).toHaveLength(created);
    const labels = (owner: string) => owner.split('.').reverse();
    const compareOwners = (a: string, b: string) => {
      if (a === b) return 0;
      if (a === '@' || b === '@') return a === '@' ? -1 : 1;
      const [x, y] = [labels(a), labels(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return x.length - y.length;
    };
    const bytewise = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const expected = [...records].sort((a, b) => compareOwners(a.owner, b.owner) || bytewise(a.type, b.type) || a.priority - b.priority || bytewise(a.data, b.data));
    expect(records).toEqual(expected);
    const checked = await namedCheckzone(name, text);
    expect(checked.code, checked.output).toBe(0);
  });

  it('replays an import sent again with the same Idempotency-Key', async () => {
    const { base } = await newDomain();
    const headers = { 'idempotency-key': `zone-${base}` };
    const first = await importZone(base, '$TTL 300\nwww A 192.0.2.1\n', { headers });
    const again = await importZone(base, '$TTL 300\nwww A 192.0.2.1\n', { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await readJson<ImportResult>(again)).toEqual(await readJson<ImportResult>(first));
    const other = await importZone(base, '$TTL 300\nwww A 192.0.2.2\n', { headers });
    expect(other.status).toBe(409);
  });
});
