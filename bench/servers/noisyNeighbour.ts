/**
 * The neighbours scenario's noisy organisation (docs/bench.md, Noisy neighbours), compiled like the
 * api and run in a process of its own, so that its load never waits in the event loop that times the
 * bystander. For `seconds` it does at once what a free organisation's members may do with their test
 * keys (and the ACME-DNS credentials they made): junk zone files at the import's body limit, maximal
 * imports, batches of the most records one takes, event streams, large exports read slowly, ACME-DNS
 * updates. A refusal is an answer like any other, counted by its status; after a 429 a loop waits out
 * its Retry-After, as our SDK does (a sender ignoring it is a flood any address can send, not a
 * tenant's work). Reads its plan from the JSON file BENCH_NOISY_PLAN names; prints {"noisy":"ready"}
 * as it starts, then one line {"noisy":"done","answers":{…}} and exits.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Answers } from '../lib/answers.js';
import { junkZoneFiles, otherProviderZoneFile } from '../zoneFile.js';
import { parseRetryAfter } from '../../src/upstream/network.js';

export interface NoisyPlan {
  apiUrl: string;
  orgId: string;
  seconds: number;
  /** Each member's test keys; requests take them in turn, streams spread over the members. */
  members: string[][];
  junk: { domain: string; bytes: number; inFlight: number };
  /** One loop per domain, replacing its records with files of these sizes in turn. */
  imports: { domains: string[]; records: number[] };
  /** One loop per domain: a batch creating `size` records, then one deleting them. */
  batches: { domains: string[]; size: number };
  streams: number;
  /** Exports of a large zone, each read no further than its first bytes for `holdMs`. */
  exports: { domain: string; inFlight: number; holdMs: number };
  acmeDns: { credentials: { username: string; password: string; subdomain: string }[]; inFlight: number };
}

export type NoisyAttack = 'junk' | 'imports' | 'batches' | 'streams' | 'exports' | 'acmeDns';

/** How long requests still under way when the time is up may take to be answered before they are cut. */
const GRACE_MS = 5_000;
const TIMEOUT_MS = 60_000;

const plan = JSON.parse(await readFile(process.env.BENCH_NOISY_PLAN!, 'utf8')) as NoisyPlan;
const org = `${plan.apiUrl}/api/v1/orgs/${plan.orgId}`;
const answers: Record<NoisyAttack, Answers> = { junk: new Answers(), imports: new Answers(), batches: new Answers(), streams: new Answers(), exports: new Answers(), acmeDns: new Answers() };
const junk = junkZoneFiles(plan.junk.bytes);
const zoneFiles = plan.imports.domains.map((domain) => plan.imports.records.map((count) => otherProviderZoneFile(domain, count).text));
const keys = plan.members.flat();
let turn = 0;
const auth = () => ({ authorization: `Bearer ${keys[turn++ % keys.length]!}` });

console.log(JSON.stringify({ noisy: 'ready' }));
const deadline = Date.now() + plan.seconds * 1_000;
/** Streams and exports are held until the time is up; other requests get GRACE_MS more, then are cut. */
const timeUp = AbortSignal.timeout(plan.seconds * 1_000);
const cut = AbortSignal.timeout(plan.seconds * 1_000 + GRACE_MS);
const running = () => Date.now() < deadline;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - Date.now()))));
const send = (attack: NoisyAttack, url: string, init: RequestInit) => answers[attack].send(url, init, { timeoutMs: TIMEOUT_MS, stop: cut });

/** A 429 is waited out (its Retry-After); an api that does not answer is given a second. */
async function afterRefusal(answer: { status: number; headers: Headers } | undefined): Promise<void> {
  if (!answer) await pause(1_000);
  else if (answer.status === 429 || answer.status === 503) await pause((parseRetryAfter(answer.headers, Date.now()) ?? 1) * 1_000);
}

/** `count` loops, each sending its next request once its last was answered, until the time is up. */
const loops = (count: number, each: (loop: number, i: number) => Promise<void>) =>
  Promise.all(
    Array.from({ length: count }, async (_, loop) => {
      for (let i = 0; running(); i += 1) await each(loop, i);
    }),
  );

const junkImports = () =>
  loops(plan.junk.inFlight, async (loop, i) => {
    const file = junk[(loop + i) % junk.length]!;
    await afterRefusal(await send('junk', `${org}/domains/${plan.junk.domain}/zone`, { method: 'POST', headers: { ...auth(), 'content-type': 'text/dns' }, body: file.text }));
  });

const maximalImports = () =>
  loops(plan.imports.domains.length, async (d, i) => {
    const files = zoneFiles[d]!;
    const url = `${org}/domains/${plan.imports.domains[d]!}/zone?mode=replace`;
    await afterRefusal(await send('imports', url, { method: 'POST', headers: { ...auth(), 'content-type': 'text/dns' }, body: files[i % files.length]! }));
  });

const batches = () =>
  loops(plan.batches.domains.length, async (d, i) => {
    const url = `${org}/domains/${plan.batches.domains[d]!}/records/batch`;
    const batch = (operations: unknown[]) => send('batches', url, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ operations }) });
    const record = (j: number) => ({ type: 'TXT', name: `noisy-${i}-${j}`, content: `noisy ${i} ${j}`, ttl: 300 });
    const created = await batch(Array.from({ length: plan.batches.size }, (_, j) => ({ op: 'create', record: record(j) })));
    if (created?.status !== 200) return afterRefusal(created);
    const ids = (JSON.parse(created.body) as { results: { record: { id: string } }[] }).results.map((result) => result.record.id);
    await afterRefusal(await batch(ids.map((id) => ({ op: 'delete', id }))));
  });

/**
 * Streams held open until the time is up, reopened when the api ends one; every other one reads a
 * chunk every few seconds, as a slow client does, so its unread events pile up at the api.
 */
const streams = () =>
  loops(plan.streams, async (s) => {
    const member = plan.members[s % plan.members.length]!;
    const key = member[Math.floor(s / plan.members.length) % member.length]!;
    try {
      const res = await fetch(`${org}/events/stream`, { headers: { authorization: `Bearer ${key}` }, signal: timeUp });
      if (res.status !== 200) {
        answers.streams.count(res.status, undefined, await res.text());
        return afterRefusal(res.status === 429 ? res : undefined);
      }
      answers.streams.count(res.status);
      const reader = res.body!.getReader();
      while (!(await reader.read()).done) if (s % 2 === 1) await pause(3_000);
    } catch {
      if (!timeUp.aborted) answers.streams.noAnswer += 1;
      await pause(1_000);
    }
  });

/** An export whose answer is read no further than the socket's first buffer, for `holdMs`: a slow reader. */
const heldExport = (key: string) =>
  new Promise<{ status: number; headers: Headers } | undefined>((resolve) => {
    const hold = AbortSignal.any([timeUp, AbortSignal.timeout(plan.exports.holdMs)]);
    const req = http.get(`${org}/domains/${plan.exports.domain}/zone`, { headers: { authorization: `Bearer ${key}` }, signal: hold }, (res) => {
      const status = res.statusCode ?? 0;
      const headers = new Headers(Object.entries(res.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value] as [string, string]] : [])));
      let body = '';
      if (status === 200) {
        answers.exports.count(status);
        res.pause();
      } else {
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => answers.exports.count(status, undefined, body));
      }
      res.on('close', () => resolve({ status, headers }));
      res.on('error', () => undefined);
    });
    req.on('error', () => {
      if (!hold.aborted) answers.exports.noAnswer += 1;
      resolve(hold.aborted ? { status: 200, headers: new Headers() } : undefined);
    });
  });

const slowExports = () => loops(plan.exports.inFlight, async () => afterRefusal(await heldExport(keys[turn++ % keys.length]!)));

const acmeDnsUpdates = () =>
  loops(plan.acmeDns.inFlight, async (loop, i) => {
    const { credentials } = plan.acmeDns;
    const credential = credentials[(loop + i * plan.acmeDns.inFlight) % credentials.length];
    if (!credential) {
      await pause(plan.seconds * 1_000);
      return;
    }
    const body = JSON.stringify({ subdomain: credential.subdomain, txt: randomBytes(32).toString('base64url') });
    const headers = { 'x-api-user': credential.username, 'x-api-key': credential.password, 'content-type': 'application/json' };
    await afterRefusal(await send('acmeDns', `${plan.apiUrl}/api/v1/acme-dns/update`, { method: 'POST', headers, body }));
  });

await Promise.all([junkImports(), maximalImports(), batches(), streams(), slowExports(), acmeDnsUpdates()]);
console.log(JSON.stringify({ noisy: 'done', answers }));
process.exit(0);
