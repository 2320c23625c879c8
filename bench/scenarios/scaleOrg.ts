/**
 * One organisation of N test-mode domains, grown in place (0, then each size): a page of its domains
 * (first, and 90 % deep by cursor) with an API key, the dashboard's domains page (its request: 20 with
 * the session), and, up to BENCH_SCALE_LIFECYCLE_MAX domains, `npm run lifecycle:backfill` starting
 * every lifecycle workflow, then the Temporal server's and the worker's memory once they idle; and
 * the day's expiry notices.
 */
import path from 'node:path';
import { insertContact, insertOrg, insertUser, sessionOf } from '../../test/support/factories.js';
import { insertKey } from '../../test/support/factories.js';
import { REPO_ROOT } from '../../test/support/processes.js';
import { randomBase62 } from '../../src/ids.js';
import { startCompiled, waitForLog } from '../lib/processes.js';
import type { Stack } from '../lib/stack.js';
import { seedDomains } from './scaleSeed.js';
import { cpuSeconds, deepCursor, medianMs, rssMbOf, timedFetch, type CurvePoint } from './scaleMeasure.js';

export type OrgOperation = 'domains, first page of 100' | 'domains, page 90 % deep' | "dashboard's domains page" | 'lifecycle backfill, all domains' | "the day's expiry notices";

export interface Org {
  orgId: string;
  contactId: string;
  key: string;
  session: string;
  seeded: number;
}

export async function bigOrg(stack: Stack): Promise<Org> {
  const user = await insertUser(stack.deps, `bench-scale-${randomBase62(6).toLowerCase()}@example.com`);
  const org = await insertOrg(stack.deps, { owner: user, name: 'Bench scale agency', plan: 'enterprise' });
  const key = await insertKey(stack.deps, { user, scopes: ['domains:read', 'domains:write'], mode: 'test', name: 'bench scale' });
  return { orgId: org.id, contactId: await insertContact(stack.deps, { orgId: org.id, livemode: false }), key: key.key, session: await sessionOf(stack.deps, user), seeded: 0 };
}

export async function orgAtSize(stack: Stack, org: Org, size: number): Promise<CurvePoint<OrgOperation>[]> {
  await seedDomains(stack.deps.db, { orgId: org.orgId, contactId: org.contactId, prefix: `scale-${randomBase62(6).toLowerCase()}-`, count: size - org.seeded });
  org.seeded = size;
  const list = `${stack.api.url}/api/v1/orgs/${org.orgId}/domains`;
  const cursor = await deepCursor(stack.deps.db, { table: 'domains', where: 'org_id = $1 AND NOT livemode', params: [org.orgId], rows: org.seeded, idPrefix: 'dom' });
  const headers = { authorization: `Bearer ${org.key}` };
  const first = await medianMs(15, () => timedFetch(`${list}?limit=100`, { headers }));
  const deep = await medianMs(15, () => timedFetch(`${list}?limit=100&cursor=${encodeURIComponent(cursor)}`, { headers }));
  const dashboard = await medianMs(15, () => timedFetch(`${list}?limit=20`, { headers: { authorization: `Bearer ${org.session}` } }));
  return [
    { operation: 'domains, first page of 100', size, ms: first },
    { operation: 'domains, page 90 % deep', size, ms: deep },
    { operation: "dashboard's domains page", size, ms: dashboard, detail: 'GET …/domains?limit=20 with the session, as dashboard/src/pages/domains.tsx' },
  ];
}

/** Waits until the worker has used under 5 % of a core over two seconds (its workflows asleep). */
async function workerIdle(pid: number): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (let before = cpuSeconds(pid); Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const now = cpuSeconds(pid);
    if (now - before < 0.1) return;
    before = now;
  }
}

/** The backfill over every watched domain in the bench's database, then both processes' memory once idle. */
export async function backfill(stack: Stack, org: Org): Promise<{ point: CurvePoint<OrgOperation>; workflows: number; temporalRssMb: number | undefined; workerRssMb: number }> {
  const worker = stack.workers[0]!;
  const started = performance.now();
  const proc = startCompiled({ name: 'backfill', script: 'dist/src/cli/lifecycleBackfill.js', env: stack.env, logFile: path.join(REPO_ROOT, `.data/bench/logs/backfill-${Date.now()}.log`) });
  const [, count] = await waitForLog(proc, /started or signalled for (\d+) domain/, 60 * 60_000);
  const ms = performance.now() - started;
  await workerIdle(worker.child.pid!);
  return {
    point: { operation: 'lifecycle backfill, all domains', size: org.seeded, ms, detail: `${count} workflows started or signalled (every watched domain in the bench's database)` },
    workflows: Number(count),
    temporalRssMb: stack.temporalPid ? rssMbOf(stack.temporalPid) : undefined,
    workerRssMb: worker.rssMb(),
  };
}

/** The "expiring" notices' leads (src/features/lifecycle/watch.ts): 30, 7 and 1 days before expiry. */
const NOTICE_LEAD_DAYS = [30, 7, 1];

/**
 * The day's expiry notices: every domain of the organisation that one more day brings to a notice
 * (30, 7 or 1 days before its expiry by its own clock; none auto-renews) has its test clock moved a
 * day, 20 requests at a time, as midnight would; then the time until each has its notice recorded
 * and mailed (`.eml` files without SMTP_URL). A domain moved at an earlier size is due again only
 * days later, so each size's day is about 3 in 365 of the domains added for it.
 */
export async function dayOfNotices(stack: Stack, org: Org): Promise<CurvePoint<OrgOperation>> {
  const { db } = stack.deps;
  const { rows: due } = await db.query<{ id: string; name: string }>(
    `SELECT id, name FROM domains
     WHERE org_id = $1 AND NOT livemode AND status = 'active' AND NOT auto_renew
       AND EXISTS (SELECT 1 FROM unnest($2::int[]) AS lead(days)
                   WHERE expires_at > now() + (lead.days + clock_offset_days) * interval '1 day'
                     AND expires_at <= now() + (lead.days + clock_offset_days + 1) * interval '1 day')`,
    [org.orgId, NOTICE_LEAD_DAYS],
  );
  const headers = { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' };
  const since = new Date(Date.now() - 1_000);
  const started = performance.now();
  for (let i = 0; i < due.length; i += 20) {
    await Promise.all(
      due.slice(i, i + 20).map((domain) =>
        timedFetch(`${stack.api.url}/api/v1/orgs/${org.orgId}/domains/${domain.name}/test-clock`, { method: 'POST', headers, body: JSON.stringify({ advance_days: 1 }) }),
      ),
    );
  }
  const ids = due.map((domain) => domain.id);
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { rows: [done] } = await db.query<{ mailed: number }>(
      `SELECT count(DISTINCT domain_id)::int AS mailed FROM domain_notices
       WHERE domain_id = ANY($1) AND kind = 'expiring' AND mailed_at IS NOT NULL AND created_at >= $2`,
      [ids, since],
    );
    if (done!.mailed >= ids.length) break;
    if (Date.now() > deadline) throw new Error(`the day's notices: ${done!.mailed} of ${ids.length} mailed after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { operation: "the day's expiry notices", size: org.seeded, ms: performance.now() - started, detail: `${ids.length} domains' notices recorded and mailed` };
}
