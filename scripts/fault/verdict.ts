/**
 * What the fault run found, read from the clients' logs and the run's own database once every accepted
 * operation had its chance to end: each figure beside its target.
 */
import type { Db } from '../../src/db/pool.js';
import type { ClientLog, LogicalRequest, Wait } from './retryingClient.js';
import type { ClientOutcome } from './workload.js';
import type { Crash } from './serviceProcesses.js';

export interface Figure {
  name: string;
  value: number;
  /** The largest value that meets the target; undefined for a figure printed for information. */
  atMost?: number;
  unit?: 's';
  details: string[];
}

export interface FaultReport {
  figures: Figure[];
  passed: boolean;
  /** Every answer the clients saw, by status. */
  answers: Record<string, number>;
  requests: number;
  retriedRequests: number;
  operations: number;
}

const TERMINAL = ['succeeded', 'failed', 'cancelled'];

/** Polls until no accepted operation is pending or running, or `timeoutMs` passed. */
export async function waitForOperations(db: Db, ids: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ open: number }>(`SELECT count(*)::int AS open FROM operations WHERE id = ANY($1) AND status <> ALL($2)`, [ids, TERMINAL]);
    if (rows[0]!.open === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface OrgLedger {
  operations: { id: string; status: string }[];
  captures: Map<string, number>;
  topUps: { count: number; sum: number };
  captured: number;
  balance: { available: number; reserved: number };
}

async function ledgerOf(db: Db, orgId: string): Promise<OrgLedger> {
  const operations = await db.query<{ id: string; status: string }>('SELECT id, status FROM operations WHERE org_id = $1 AND NOT livemode', [orgId]);
  const entries = await db.query<{ type: string; operationId: string | null; amount: number }>(
    `SELECT type, operation_id AS "operationId", amount::int AS amount FROM billing_transactions WHERE org_id = $1 AND NOT livemode AND type IN ('top_up', 'capture')`,
    [orgId],
  );
  const captures = new Map<string, number>();
  let captured = 0;
  for (const e of entries.rows.filter((row) => row.type === 'capture')) {
    captures.set(e.operationId!, (captures.get(e.operationId!) ?? 0) + 1);
    captured += e.amount;
  }
  const topUps = entries.rows.filter((row) => row.type === 'top_up');
  const balance = await db.query<{ available: number; reserved: number }>(
    'SELECT available::int AS available, reserved::int AS reserved FROM billing_balances WHERE org_id = $1 AND NOT livemode',
    [orgId],
  );
  return {
    operations: operations.rows,
    captures,
    topUps: { count: topUps.length, sum: topUps.reduce((sum, e) => sum + e.amount, 0) },
    captured,
    balance: balance.rows[0] ?? { available: 0, reserved: 0 },
  };
}

type Interval = { from: number; to: number };

/** The time from `from` to `to` while an api process existed: the time none did is the restart's, not the service's. */
function withApiUp(from: number, to: number, apiDown: Interval[]): number {
  return to - from - apiDown.reduce((sum, down) => sum + Math.max(0, Math.min(to, down.to) - Math.max(from, down.from)), 0);
}

export async function judge(props: {
  /** When the run started: the details say when each slow request began, from then. */
  startedAt: number;
  db: Db;
  logs: ClientLog[];
  outcomes: ClientOutcome[];
  initialCredit: number;
  waitTargetMs: number;
  apiDown: Interval[];
  crashes: Crash[];
}): Promise<FaultReport> {
  const answers: Record<string, number> = {};
  for (const log of props.logs) for (const [answer, n] of log.answers) answers[answer] = (answers[answer] ?? 0) + n;
  const requests = props.logs.flatMap((log) => log.requests);
  const retried = requests.filter((r) => r.attempts > 1);
  const lost: string[] = requests.filter((r) => !r.answered).map((r) => `${r.what}: no definite answer after ${r.attempts} attempts in ${((r.endedAt - r.startedAt) / 1000).toFixed(1)} s`);
  const stuck: string[] = [];
  const doubled: string[] = [];
  const mismatched: string[] = [];
  let operations = 0;
  for (const outcome of props.outcomes) {
    const ledger = await ledgerOf(props.db, outcome.orgId);
    operations += ledger.operations.length;
    const known = new Map(ledger.operations.map((op) => [op.id, op.status]));
    for (const [id, what] of outcome.accepted) {
      const status = known.get(id);
      if (status === undefined) lost.push(`${what}: operation ${id} accepted but unknown`);
      else if (!TERMINAL.includes(status)) stuck.push(`${what}: operation ${id} still ${status}`);
    }
    // A second operation for one request is a second reservation, and a second charge once it succeeds.
    for (const op of ledger.operations) if (!outcome.accepted.has(op.id)) doubled.push(`operation ${op.id} (${op.status}) was never answered to a client`);
    for (const [id, n] of ledger.captures) if (n > 1) doubled.push(`operation ${id} captured ${n} times`);
    const expectedCredit = props.initialCredit + outcome.toppedUp;
    if (ledger.topUps.sum > expectedCredit) doubled.push(`${outcome.orgId}: ${ledger.topUps.sum - expectedCredit} credited beyond the top-ups answered 201`);
    if (ledger.topUps.sum < expectedCredit) mismatched.push(`${outcome.orgId}: top-ups answered 201 but ${expectedCredit - ledger.topUps.sum} never credited`);
    for (const op of ledger.operations) {
      const captured = ledger.captures.has(op.id);
      if (op.status === 'succeeded' && !captured) mismatched.push(`operation ${op.id} succeeded but was never captured`);
      if (op.status !== 'succeeded' && captured) mismatched.push(`operation ${op.id} captured but ${op.status}`);
    }
    const { available, reserved } = ledger.balance;
    if (available !== ledger.topUps.sum - ledger.captured || reserved !== 0) {
      mismatched.push(`${outcome.orgId}: balance ${available} available and ${reserved} reserved; credits ${ledger.topUps.sum} minus captures ${ledger.captured} is ${ledger.topUps.sum - ledger.captured}`);
    }
  }
  const longest = (pick: (r: LogicalRequest) => number) => retried.reduce((max, r) => Math.max(max, pick(r)), 0);
  const slowest = (pick: (r: LogicalRequest) => number) =>
    [...retried]
      .sort((a, b) => pick(b) - pick(a))
      .slice(0, 3)
      .filter((r) => pick(r) > 0)
      .map((r) => `${r.what} sent at ${((r.startedAt - props.startedAt) / 1000).toFixed(1)} s: ${(pick(r) / 1000).toFixed(1)} s; ${r.trail}`);
  const seconds = props.waitTargetMs / 1000;
  const longestWait = (r: LogicalRequest, which: (w: Wait) => boolean) =>
    r.waits.filter(which).reduce((max, w) => Math.max(max, withApiUp(w.from, w.to, props.apiDown)), 0);
  const blockedMs = (r: LogicalRequest) => longestWait(r, () => true);
  const keyInUseMs = (r: LogicalRequest) => longestWait(r, (w) => w.refusedInUse);
  const figures: Figure[] = [
    { name: '500 answers', value: answers['500'] ?? 0, atMost: 0, details: [] },
    {
      name: 'api or worker crashes (ended unkilled)',
      value: props.crashes.length,
      atMost: 0,
      details: props.crashes.map((c) => `${c.role} at ${((c.at - props.startedAt) / 1000).toFixed(1)} s: ${c.reason}`),
    },
    { name: 'operations or requests lost', value: lost.length, atMost: 0, details: lost },
    { name: 'operations stuck (not ended)', value: stuck.length, atMost: 0, details: stuck },
    { name: 'double charges', value: doubled.length, atMost: 0, details: doubled },
    { name: 'other ledger mismatches', value: mismatched.length, atMost: 0, details: mismatched },
    { name: 'unexpected definite answers', value: props.outcomes.reduce((n, o) => n + o.unexpected.length, 0), atMost: 0, details: props.outcomes.flatMap((o) => o.unexpected) },
    {
      // Blocked: from an attempt that failed where it may have held the key (or the first attempt)
      // until the next attempt got past the key. That attempt's own time is the request's ordinary
      // latency (a renewal waits up to 10 s for its end by design), and each failure of a holder
      // starts a wait of its own: a request cut by two crashes waited twice, each bounded alone.
      name: 'longest a retry was blocked',
      value: longest(blockedMs) / 1000,
      atMost: seconds,
      unit: 's',
      details: [
        'from a failed attempt (5xx, or cut by a crash) to the next attempt that got past the key, not counting the time no api process existed',
        ...slowest(blockedMs),
      ],
    },
    {
      name: 'longest wait of a retried request',
      value: longest((r) => withApiUp(r.startedAt, r.endedAt, props.apiDown)) / 1000,
      unit: 's',
      details: [
        `first attempt to its answer, not counting the time no api process existed; counting it: ${(longest((r) => r.endedAt - r.startedAt) / 1000).toFixed(1)} s`,
        ...slowest((r) => withApiUp(r.startedAt, r.endedAt, props.apiDown)),
      ],
    },
    {
      name: 'longest single answer',
      value: requests.reduce((max, r) => Math.max(max, r.endedAt - r.lastSentAt), 0) / 1000,
      unit: 's',
      details: ['one attempt, retried or not: how long a request may hang while a dependency is away'],
    },
    {
      // A lease left by a killed api, or by a request that answered 5xx, outlives it by at most its
      // term: measured from that failure, which is earlier than the first refusal it causes.
      name: 'longest IDEMPOTENCY_KEY_IN_USE refusal',
      value: longest(keyInUseMs) / 1000,
      atMost: seconds,
      unit: 's',
      details: ['waits above during which the key was refused as in use, from the failure that left it held', ...slowest(keyInUseMs)],
    },
  ];
  return {
    figures,
    passed: figures.every(meets),
    answers,
    requests: requests.length,
    retriedRequests: retried.length,
    operations,
  };
}

/**
 * Each fault's time to recover: from the fault to the first request sent after it that succeeded
 * (2xx), whatever client sent it. A fault the clients never noticed recovers in one request's time.
 */
export function recoveryFigures(events: { name: string; at: number; engineMs?: number }[], logs: ClientLog[], atMostMs: number): Figure[] {
  const successes = logs.flatMap((log) => log.requests).filter((r) => r.answered && /\b2\d\d$/.test(r.trail));
  return events.map((event) => {
    const first = successes.filter((r) => r.lastSentAt >= event.at).reduce((min, r) => Math.min(min, r.endedAt), Infinity);
    return {
      name: `recovered after ${event.name}`,
      value: (first - event.at) / 1000,
      atMost: atMostMs / 1000,
      unit: 's' as const,
      details: [`first success sent after the fault${event.engineMs === undefined ? '' : `; the fault over and the cluster whole again (a node killed is back) after ${(event.engineMs / 1000).toFixed(1)} s`}`],
    };
  });
}

/** The report with more figures, judged again. */
export function withFigures(report: FaultReport, figures: Figure[]): FaultReport {
  const all = [...report.figures, ...figures];
  return { ...report, figures: all, passed: all.every(meets) };
}

const meets = (f: Figure) => f.atMost === undefined || f.value <= f.atMost;

export function formatReport(report: FaultReport): string {
  const lines = [
    `${report.requests} requests (${report.retriedRequests} retried), ${report.operations} operations; answers: ${Object.entries(report.answers)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([answer, n]) => `${answer} × ${n}`)
      .join(', ')}`,
    '',
  ];
  const width = Math.max(...report.figures.map((f) => f.name.length));
  for (const f of report.figures) {
    const value = f.unit ? `${f.value.toFixed(1)} ${f.unit}` : String(f.value);
    const target = f.atMost === undefined ? 'no target' : `target ${f.unit ? `≤ ${f.atMost} ${f.unit}` : f.atMost}`;
    lines.push(`${f.atMost === undefined ? '    ' : meets(f) ? 'ok  ' : 'MISS'}  ${f.name.padEnd(width)}  ${value.padStart(7)}   ${target}`);
    for (const detail of f.details.slice(0, 5)) lines.push(`        ${detail}`);
    if (f.details.length > 5) lines.push(`        … and ${f.details.length - 5} more`);
  }
  lines.push('', report.passed ? 'fault run: every target met' : 'fault run: targets missed');
  return lines.join('\n');
}
