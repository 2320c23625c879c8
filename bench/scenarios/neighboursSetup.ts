/**
 * The neighbours scenario's noisy organisation as it stands before it turns on its neighbours: a free
 * organisation whose members hold test keys, with test-mode domains, a zone as large as a free zone
 * may be, as many webhook endpoints as it may have (at a receiver of the bench's that accepts and
 * never answers), and ACME-DNS registrations. Users, keys and domains are written straight to the
 * database (test/support/factories.ts); endpoints and registrations are made through the api, by a
 * member of their own (so the attackers' rate limits start untouched), until the api refuses more.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertContact, insertKey, insertMember, insertOrg, insertUser } from '../../test/support/factories.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { randomBase62 } from '../../src/ids.js';
import { parseRetryAfter } from '../../src/upstream/network.js';
import { activeDomain } from '../lib/customer.js';
import type { Stack } from '../lib/stack.js';
import type { NoisyPlan } from '../servers/noisyNeighbour.js';
import { seedZoneRecords } from './scaleSeed.js';

/** A webhook receiver that takes every connection and never answers: each delivery waits for its timeout. */
export async function silentReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * POSTs `body` until the api refuses with a 409 (the organisation's limit) or `most` were made,
 * waiting out a 429's Retry-After (the setup member's free rate limits); the bodies of the 201s.
 */
async function createUntilRefused(url: string, tokens: string[], props: { body: string; most: number }): Promise<string[]> {
  const made: string[] = [];
  for (let attempt = 0; made.length < props.most && attempt < props.most * 10; attempt += 1) {
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${tokens[attempt % tokens.length]!}`, 'content-type': 'application/json' }, body: props.body });
    const text = await res.text();
    if (res.status === 201) made.push(text);
    else if (res.status === 409) break;
    else if (res.status === 429) await new Promise((resolve) => setTimeout(resolve, (parseRetryAfter(res.headers, Date.now()) ?? 1) * 1_000));
    else throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 300)}`);
  }
  return made;
}

/** What the noisy process is given of its organisation (bench/servers/noisyNeighbour.ts). */
export interface NoisySetup {
  orgId: string;
  members: NoisyPlan['members'];
  junkDomain: string;
  importDomains: string[];
  batchDomains: string[];
  /** A test-mode zone seeded to `exportRecords` records. */
  exportDomain: string;
  acmeDns: NoisyPlan['acmeDns']['credentials'];
  /** Webhook endpoints made before the api refused more. */
  endpoints: number;
}

export async function noisyOrganisation(
  stack: Stack,
  props: { members: number; keysPerMember: number; receiverUrl: string; exportRecords: number; acmeRegistrations: number; importLoops: number; batchLoops: number },
): Promise<NoisySetup> {
  const { deps } = stack;
  const user = (label: string) => insertUser(deps, `bench-noisy-${label}-${randomBase62(6).toLowerCase()}@example.com`);
  const owner = await user('owner');
  const org = await insertOrg(deps, { owner, name: 'Bench noisy neighbour' });
  const members = [owner];
  for (let m = 1; m < props.members; m += 1) {
    const member = await user(`member${m}`);
    await insertMember(deps, { orgId: org.id, user: member, role: 'admin' });
    members.push(member);
  }
  const keysOf = async (of: typeof owner, mode: 'test' | 'live', count: number) =>
    Promise.all(Array.from({ length: count }, async () => (await insertKey(deps, { user: of, scopes: [...SCOPES], mode, name: `noisy ${mode}` })).key));
  const memberKeys = await Promise.all(members.map((member) => keysOf(member, 'test', props.keysPerMember)));
  const setup = await user('setup');
  await insertMember(deps, { orgId: org.id, user: setup, role: 'admin' });

  const contactId = await insertContact(deps, { orgId: org.id, livemode: false });
  const domain = () => activeDomain(deps, { orgId: org.id, livemode: false, contactId });
  const junkDomain = await domain();
  const importDomains = await Promise.all(Array.from({ length: props.importLoops }, domain));
  const batchDomains = await Promise.all(Array.from({ length: props.batchLoops }, domain));
  const exportDomain = await domain();
  const { rows: [exported] } = await deps.db.query<{ id: string }>('SELECT id FROM domains WHERE name = $1 AND NOT livemode', [exportDomain]);
  await seedZoneRecords(stack, { domainId: exported!.id, orgId: org.id, zone: exportDomain, livemode: false, prefix: 'noisy', count: props.exportRecords });

  const base = `${stack.api.url}/api/v1/orgs/${org.id}`;
  const endpoints = await createUntilRefused(`${base}/webhook-endpoints`, await keysOf(setup, 'test', 1), {
    body: JSON.stringify({ url: props.receiverUrl, events: ['*'], description: 'never answers' }),
    most: 100,
  });
  // Live: a live registration's updates go to the DNS host's one ACME-DNS zone, which every customer shares.
  const registrations = await createUntilRefused(`${base}/acme-dns/register`, await keysOf(setup, 'live', 2), { body: '{}', most: props.acmeRegistrations });
  const acmeDns = registrations.map((text) => {
    const { username, password, subdomain } = JSON.parse(text) as { username: string; password: string; subdomain: string };
    return { username, password, subdomain };
  });
  return { orgId: org.id, members: memberKeys, junkDomain, importDomains, batchDomains, exportDomain, acmeDns, endpoints: endpoints.length };
}
