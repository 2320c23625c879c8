/**
 * `npm run bench -- --scenario scale`: how cost grows as a customer grows (docs/bench.md, Scale). Each
 * operation at each size beside the same operation on a zone or organisation of one page, with the growth
 * factor, and the curves drawn to docs/bench-scale.svg. The "empty database" a size is compared with
 * holds one page (100 rows), so a page read shows the same rows at every size.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../test/support/processes.js';
import { benchCustomer } from '../lib/customer.js';
import type { BenchRow } from '../lib/report.js';
import type { Stack } from '../lib/stack.js';
import { zoneAtSize } from './scaleZone.js';
import { backfill, bigOrg, dayOfNotices, orgAtSize } from './scaleOrg.js';
import { benchScaleWebhooks } from './scaleWebhookRows.js';
import { scaleSvg, type Curve } from './scaleSvg.js';
import type { CurvePoint } from './scaleMeasure.js';

export interface ScaleOptions {
  /** The baseline: a zone or organisation holding one page (100), the "empty database" a page read is compared with. */
  base: number;
  zoneSizes: number[];
  orgSizes: number[];
  /** The backfill runs at org sizes up to this (100,000 workflows take long on a small machine). */
  lifecycleMax: number;
  webhookEndpoints: number;
  webhookEvents: number;
  /** The burst row's events, to the same endpoints (BENCH_SCALE_WEBHOOK_BURST_EVENTS; 0: not run). */
  webhookBurstEvents: number;
  /** Events sent one at a time to an idle endpoint, for the latency from commit to first attempt. */
  webhookIdleEvents: number;
  /** A backlog of events no endpoint wants, for the dispatcher to go through (BENCH_SCALE_BACKLOG_EVENTS). */
  backlogEvents: number;
  /** Which of zone, org, webhooks to run (BENCH_SCALE_PARTS). */
  parts: string[];
}

/** Reads a page: within 1.5× of one page. The rest: no worse than linear in the size. */
const PAGE_READS = new Set(['list, first page of 100', 'list, page 90 % deep', 'domains, first page of 100', 'domains, page 90 % deep', "dashboard's domains page"]);
const LINEAR_SLACK = 1.25;

const sizeLabel = (size: number) => (size >= 1_000 ? `${size / 1_000}k` : String(size));

function curveRows(section: string, what: string, points: CurvePoint[]): { rows: BenchRow[]; curves: Curve[] } {
  const rows: BenchRow[] = [];
  const curves: Curve[] = [];
  for (const operation of [...new Set(points.map((p) => p.operation))]) {
    const [base, ...rest] = points.filter((p) => p.operation === operation).sort((a, b) => a.size - b.size);
    if (!base) continue;
    const floor = { name: `the same on a ${what} of one page (${base.size})`, value: base.ms };
    for (const point of rest) {
      const ratio = point.ms / base.ms;
      const linear = point.size / base.size;
      const target = PAGE_READS.has(operation)
        ? { text: '≤ 1.5× one page', met: ratio <= 1.5 }
        : { text: `≤ linear (${linear}× size)`, met: ratio <= linear * LINEAR_SLACK };
      rows.push({ section, name: `${operation} @ ${sizeLabel(point.size)}`, value: point.ms, unit: 'ms', ...(point.detail ? { detail: point.detail } : {}), floor, ratio, target });
    }
    curves.push({ name: operation, points: [base, ...rest].map((p) => ({ size: p.size, factor: p.ms / base.ms })) });
  }
  return { rows, curves };
}

/** The curves as one line each: the baseline, each size, and the growth at the largest. */
function printCurves(title: string, points: CurvePoint[]): void {
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  console.log(`\n${title} (ms)`);
  console.log(`${'operation'.padEnd(38)} ${sizes.map((s) => sizeLabel(s).padStart(9)).join(' ')}   growth`);
  for (const operation of [...new Set(points.map((p) => p.operation))]) {
    const ms = sizes.map((s) => points.find((p) => p.operation === operation && p.size === s)?.ms);
    const [base, last] = [ms[0], ms.at(-1)];
    const growth = base && last ? `${(last / base).toFixed(2)}×` : '';
    console.log(`${operation.padEnd(38)} ${ms.map((v) => (v === undefined ? '' : v.toFixed(1)).padStart(9)).join(' ')}   ${growth}`);
  }
}

/** Prints each part's rows through `emit` as soon as it is measured. */
export async function benchScale(stack: Stack, o: ScaleOptions, emit: (rows: BenchRow[]) => void): Promise<void> {

  const customer = await benchCustomer(stack.deps, 'scale');
  const zonePoints: CurvePoint[] = [];
  for (const size of o.parts.includes('zone') ? [o.base, ...o.zoneSizes] : []) zonePoints.push(...(await zoneAtSize(stack, customer, size)));
  const zone = curveRows('Scale: one live zone of N records (PowerDNS behind it)', 'zone', zonePoints);
  emit(zone.rows);
  printCurves('One zone of N records', zonePoints);

  const org = await bigOrg(stack);
  const orgPoints: CurvePoint[] = [];
  const backfills: Awaited<ReturnType<typeof backfill>>[] = [];
  for (const size of o.parts.includes('org') ? [o.base, ...o.orgSizes] : []) {
    orgPoints.push(...(await orgAtSize(stack, org, size)));
    if (size <= o.lifecycleMax) {
      const run = await backfill(stack, org);
      backfills.push(run);
      orgPoints.push(run.point);
    }
    orgPoints.push(await dayOfNotices(stack, org));
  }
  const orgRows = curveRows('Scale: one organisation of N domains', 'organisation', orgPoints);
  emit(orgRows.rows);
  emit(
    backfills.map((run) => ({
      section: 'Scale: lifecycle workflows idle on Temporal after the backfill',
      name: `memory with ${run.workflows.toLocaleString('en-GB')} lifecycle workflows`,
      value: run.temporalRssMb ?? NaN,
      unit: 'MB',
      detail: `Temporal dev server RSS; worker RSS ${run.workerRssMb.toFixed(0)} MB`,
    })),
  );
  printCurves('One organisation of N domains', orgPoints);

  if (o.parts.includes('webhooks')) await benchScaleWebhooks(stack, o, emit);

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end, ${new Date().toISOString().slice(0, 10)}`;
  const file = process.env.BENCH_SCALE_SVG ?? path.join(REPO_ROOT, 'docs/bench-scale.svg');
  await writeFile(file, scaleSvg({ machine, panels: [{ title: 'One zone of N records', curves: zone.curves }, { title: 'One organisation of N domains', curves: orgRows.curves }] }));
  console.log(`\nCurves drawn to ${path.relative(REPO_ROOT, file)}`);
}
