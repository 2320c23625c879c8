/**
 * How many event streams may be open (src/features/webhooks/eventStreamSlots.ts): per member and per
 * organisation, in each mode (5 and 10 on the free plan), counted in Redis across api processes; and
 * a stream keeps its place for as long as it lives, however many slot lifetimes that is (the slot
 * lifetime is shortened here so that a few seconds are many lifetimes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, uniqueEmail } from '../../../test/support/actors.js';
import { forwardedFrom, simulatedClientAddress } from '../../../test/support/http.js';
import { insertMember, insertOrg, insertUser, sessionOf } from '../../../test/support/factories.js';
import { openEventStream, type OpenEventStream } from '../../../test/support/eventStreamClient.js';

const SLOT_TTL_MS = 1_500;

let app: TestApp;
const address = simulatedClientAddress();

beforeAll(async () => {
  app = await startTestApp({ env: { EVENT_STREAM_SLOT_TTL: `${SLOT_TTL_MS}ms` } });
});
afterAll(async () => app?.close());

/** A free-plan organisation and the sessions of its owner and two members. */
async function freeOrg(): Promise<{ id: string; people: string[] }> {
  const owner = await insertUser(app.deps, uniqueEmail('streams'));
  const org = await insertOrg(app.deps, { owner });
  const people = [await sessionOf(app.deps, owner)];
  for (let i = 0; i < 2; i += 1) {
    const member = await insertUser(app.deps, uniqueEmail('streams'));
    await insertMember(app.deps, { orgId: org.id, user: member, role: 'member' });
    people.push(await sessionOf(app.deps, member));
  }
  return { id: org.id, people };
}

const opened: OpenEventStream[] = [];
afterAll(() => opened.forEach((stream) => stream.close()));

async function open(orgId: string, session: string, mode: 'test' | 'live'): Promise<OpenEventStream> {
  const stream = await openEventStream(
    `${app.url}/api/v1/orgs/${orgId}/events/stream`,
    forwardedFrom(address, { headers: { ...bearer(session), ...(mode === 'test' ? { 'x-mode': 'test' } : {}) } }),
  );
  opened.push(stream);
  return stream;
}

async function openMany(orgId: string, session: string, mode: 'test' | 'live', count: number): Promise<OpenEventStream[]> {
  const streams: OpenEventStream[] = [];
  for (let i = 0; i < count; i += 1) {
    const stream = await open(orgId, session, mode);
    expect(stream.status).toBe(200);
    streams.push(stream);
  }
  return streams;
}

describe('event stream limits', () => {
  it('refuses a member’s sixth stream in a mode while another member still gets one; test-mode streams take no live-mode places', async () => {
    const org = await freeOrg();
    const [owner, member] = org.people as [string, string];
    await openMany(org.id, owner, 'test', 5);
    const sixth = await open(org.id, owner, 'test');
    expect(sixth.status).toBe(409);
    expect(sixth.error).toMatchObject({ code: 'EVENT_STREAM_LIMIT', detail: expect.stringContaining('You already have 5 event streams') });
    expect((await open(org.id, member, 'test')).status).toBe(200);
    expect((await open(org.id, owner, 'live')).status).toBe(200);
  });

  it('holds ten streams per organisation and mode: the eleventh is refused whoever asks, and live mode has ten of its own', async () => {
    const org = await freeOrg();
    const [owner, member, third] = org.people as [string, string, string];
    await openMany(org.id, owner, 'test', 5);
    await openMany(org.id, member, 'test', 5);
    const eleventh = await open(org.id, third, 'test');
    expect(eleventh.status).toBe(409);
    expect(eleventh.error).toMatchObject({ code: 'EVENT_STREAM_LIMIT', detail: expect.stringContaining('This organisation already has 10 event streams') });
    await openMany(org.id, third, 'live', 5);
    await openMany(org.id, member, 'live', 5);
  });

  it('keeps every open stream’s place through many slot lifetimes: none is lost when its set would have expired', async () => {
    const org = await freeOrg();
    const streams = await openMany(org.id, org.people[0]!, 'test', 3);
    await Promise.all(streams.map((stream) => stream.next((m) => m.event === 'ready')));
    const key = `event-streams:${org.id}:test`;
    // Each renewal moves its slot's score: watch every slot renewed twelve times (four lifetimes;
    // the set's own expiry, two lifetimes, long passed), all three held throughout.
    const seen = new Map<string, Set<string>>();
    const held: number[] = [];
    await expect
      .poll(
        async () => {
          const slots = await app.deps.redis.zrange(key, '0', '-1', 'WITHSCORES');
          held.push(slots.length / 2);
          for (let i = 0; i < slots.length; i += 2) {
            const scores = seen.get(slots[i]!) ?? new Set<string>();
            seen.set(slots[i]!, scores.add(slots[i + 1]!));
          }
          return [...seen.values()].filter((scores) => scores.size >= 12).length;
        },
        { interval: 100, timeout: 20 * SLOT_TTL_MS },
      )
      .toBe(3);
    expect(new Set(held)).toEqual(new Set([3]));
    expect(seen.size).toBe(3);
    expect(streams.flatMap((stream) => stream.messages.filter((m) => m.event === 'end'))).toEqual([]);
    expect(await app.deps.redis.pttl(key)).toBeGreaterThan(0);
  }, 60_000);
});
