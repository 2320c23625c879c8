/**
 * `npx tsx bench/medians.ts [--before A.json,B.json,C.json] RUN1.json RUN2.json RUN3.json`: the median
 * of each row over several `npm run bench -- --json` runs, as a Markdown table for docs/bench.md's
 * section; with `--before`, the medians of earlier runs beside them.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { BenchRow } from './lib/report.js';

interface Run {
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  rows: BenchRow[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function mediansOf(files: string[]): Promise<{ machine: Run['machine']; rows: Map<string, { row: BenchRow; value: number; floor?: number; ratio?: number; met: number }> }> {
  const runs = await Promise.all(files.map(async (file) => JSON.parse(await readFile(file, 'utf8')) as Run));
  const rows = new Map<string, { row: BenchRow; values: number[]; floors: number[]; ratios: number[]; met: number }>();
  for (const run of runs) {
    for (const row of run.rows) {
      const key = `${row.section}|${row.name}`;
      const entry = rows.get(key) ?? { row, values: [], floors: [], ratios: [], met: 0 };
      entry.values.push(row.value);
      if (row.floor) entry.floors.push(row.floor.value);
      if (row.ratio !== undefined) entry.ratios.push(row.ratio);
      if (row.target?.met) entry.met += 1;
      rows.set(key, entry);
    }
  }
  return {
    machine: runs[0]!.machine,
    rows: new Map(
      [...rows].map(([key, e]) => [
        key,
        { row: e.row, value: median(e.values), ...(e.floors.length ? { floor: median(e.floors) } : {}), ...(e.ratios.length ? { ratio: median(e.ratios) } : {}), met: e.met },
      ]),
    ),
  };
}

const fmt = (value: number, unit: string) => `${value.toLocaleString('en-GB', { maximumFractionDigits: Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2 })} ${unit}`.trim();
const ratioText = (ratio: number | undefined, unit: string) => (ratio === undefined ? '' : unit === 'req/s' || unit === '/s' ? `${(ratio * 100).toFixed(0)} %` : `${ratio.toFixed(2)}×`);

const { values, positionals } = parseArgs({ allowPositionals: true, options: { before: { type: 'string' } } });
const after = await mediansOf(positionals);
const before = values.before ? await mediansOf(values.before.split(',')) : undefined;
const { machine } = after;
console.log(`Medians of ${positionals.length} runs on ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}.\n`);
console.log(`| row | ${before ? 'before | ' : ''}now | floor | ratio | target | met |`);
console.log(`| --- | ${before ? '--- | ' : ''}--- | --- | --- | --- | --- |`);
for (const [key, m] of after.rows) {
  const was = before?.rows.get(key);
  const beforeCell = before ? `${was ? `${fmt(was.value, m.row.unit)}${was.ratio !== undefined ? ` (${ratioText(was.ratio, m.row.unit)})` : ''}` : ''} | ` : '';
  console.log(
    `| ${m.row.name} | ${beforeCell}${fmt(m.value, m.row.unit)} | ${m.floor !== undefined ? fmt(m.floor, m.row.unit) : ''} | ${ratioText(m.ratio, m.row.unit)} | ${m.row.target?.text ?? ''} | ${m.row.target ? `${m.met}/${positionals.length}` : ''} |`,
  );
}
