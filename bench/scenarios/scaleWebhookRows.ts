/**
 * The scale bench's webhooks part (docs/bench.md, Scale): an idle endpoint's commit → first attempt,
 * the burst of BENCH_SCALE_WEBHOOK_EVENTS and the burst row of BENCH_SCALE_WEBHOOK_BURST_EVENTS to the
 * same endpoints, each beside its floor (the same POSTs by a bare loop, in the same run), with the
 * worker's and the Temporal dev server's CPU per delivery; then the dispatcher's backlog.
 */
import type { BenchRow } from '../lib/report.js';
import { ratioRow } from '../lib/report.js';
import type { Stack } from '../lib/stack.js';
import { burstEndpoints, dispatcherBacklog, webhookBurst, type BurstResult } from './scaleWebhooks.js';
import { bareLoopFloor, startBurstReceiver } from './webhookReceiver.js';

/** Today's figure before the endpoint queues (docs/bench.md): 10,000 events to 1,000 endpoints in 140 s. */
const PER_DELIVERY_WORKFLOW_RATE = 72;
/** The worker's activities at once (WORKER_MAX_CONCURRENT_ACTIVITIES): the bare loop's POSTs in flight. */
const FLOOR_CONCURRENCY = 100;

const count = (n: number) => n.toLocaleString('en-GB');

function burstRows(section: string, events: number, burst: BurstResult, floorPerSecond: number, bigBurst: boolean): BenchRow[] {
  const rate = (burst.delivered / burst.lastDeliveryMs) * 1_000;
  const perDelivery = (seconds: number) => (seconds / Math.max(1, burst.delivered)) * 1_000;
  const rows: BenchRow[] = [
    { section, name: 'burst start → last delivery', value: burst.lastDeliveryMs, unit: 'ms', detail: `events committed in ${burst.emitMs.toFixed(0)} ms` },
    ratioRow({
      section,
      name: 'deliveries a second',
      value: rate,
      unit: '/s',
      detail: `${(rate / PER_DELIVERY_WORKFLOW_RATE).toFixed(1)}× a workflow per delivery's ${PER_DELIVERY_WORKFLOW_RATE}/s`,
      floor: { name: `the same ${count(events)} signed POSTs by a bare loop, ${FLOOR_CONCURRENCY} at a time`, value: floorPerSecond },
      atLeast: 0.5,
    }),
    { section, name: 'delivered', value: burst.delivered, unit: `of ${events}`, detail: `${burst.duplicates} sent twice`, target: { text: 'all', met: burst.delivered === events } },
    {
      section,
      name: 'commit → first attempt p50',
      value: burst.latency.p50,
      unit: 'ms',
      detail: `p99 ${burst.latency.p99.toFixed(0)} ms, max ${burst.latency.max.toFixed(0)} ms`,
      ...(bigBurst ? { target: { text: 'p99 < 2 s', met: burst.latency.p99 < 2_000 } } : {}),
    },
    {
      section,
      name: 'worker CPU per delivery',
      value: perDelivery(burst.workerCpuSeconds),
      unit: 'ms',
      detail: `${burst.workerCpuSeconds.toFixed(1)} s in all (dispatcher and deliveries)`,
      target: { text: '≤ 2 ms', met: perDelivery(burst.workerCpuSeconds) <= 2 },
    },
  ];
  if (burst.temporalCpuSeconds !== undefined) {
    const temporal = perDelivery(burst.temporalCpuSeconds);
    rows.push({ section, name: 'Temporal CPU per delivery', value: temporal, unit: 'ms', detail: `${burst.temporalCpuSeconds.toFixed(1)} s in all (the dev server)`, target: { text: '≤ 1 ms', met: temporal <= 1 } });
  }
  rows.push({
    section,
    name: 'worker peak RSS during the burst',
    value: burst.workerPeakRssMb,
    unit: 'MB',
    ...(bigBurst ? { target: { text: '< 400 MB', met: burst.workerPeakRssMb < 400 } } : {}),
  });
  return rows;
}

export interface ScaleWebhookOptions {
  webhookEndpoints: number;
  webhookEvents: number;
  webhookBurstEvents: number;
  webhookIdleEvents: number;
  backlogEvents: number;
}

export async function benchScaleWebhooks(stack: Stack, o: ScaleWebhookOptions, emit: (rows: BenchRow[]) => void): Promise<void> {
  const receiver = await startBurstReceiver();
  try {
    const orgIds = await burstEndpoints(stack, { count: o.webhookEndpoints, receiver });
    const section = (events: number) => `Scale: ${count(o.webhookEndpoints)} webhook endpoints (one per organisation), a burst of ${count(events)} events`;

    // Idle: one event at a time to one endpoint whose queue has gone to sleep between them.
    const idle = await webhookBurst(stack, { orgIds: orgIds.slice(0, 1), events: o.webhookIdleEvents, receiver, label: 'idle', perTransaction: 1, spacingMs: 200 });
    emit([
      {
        section: `Scale: ${count(o.webhookEndpoints)} webhook endpoints, one event every 200 ms to one of them (idle)`,
        name: 'commit → first attempt p50',
        value: idle.latency.p50,
        unit: 'ms',
        detail: `p99 ${idle.latency.p99.toFixed(0)} ms; ${idle.delivered} of ${o.webhookIdleEvents} delivered`,
        target: { text: '< 200 ms', met: idle.latency.p50 < 200 },
      },
    ]);

    for (const [events, big] of [[o.webhookEvents, false], [o.webhookBurstEvents, true]] as const) {
      if (events <= 0) continue;
      const burst = await webhookBurst(stack, { orgIds, events, receiver, label: big ? 'big' : 'burst' });
      const floor = await bareLoopFloor({ receiver, count: events, concurrency: FLOOR_CONCURRENCY, config: stack.deps.config });
      emit(burstRows(section(events), events, burst, floor, big));
    }

    const backlog = await dispatcherBacklog(stack, { orgIds, events: o.backlogEvents });
    emit([
      {
        section: section(o.webhookEvents),
        name: `a backlog of ${count(o.backlogEvents)} events no endpoint wants, handed on`,
        value: backlog.handedOnMs,
        unit: 'ms',
        detail: `${((o.backlogEvents / backlog.handedOnMs) * 1_000).toFixed(0)} events/s; worker CPU ${backlog.workerCpuSeconds.toFixed(2)} s`,
      },
    ]);
  } finally {
    await receiver.close();
  }
}
