/**
 * The bench's rows: each figure beside its floor, measured in the same run, the ratio between them and
 * the issue's target (docs/bench.md). Printed as a table, and written as JSON with `--json FILE`.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';

export interface BenchRow {
  section: string;
  name: string;
  value: number;
  unit: string;
  /** Other figures of the same measurement (p99, counts), printed after the value. */
  detail?: string;
  floor?: { name: string; value: number };
  /** value ÷ floor, or what the target compares. */
  ratio?: number;
  target?: { text: string; met: boolean };
}

export function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

export function summarise(samples: number[]): { p50: number; p99: number; max: number; count: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: nearestRank(sorted, 50), p99: nearestRank(sorted, 99), max: sorted[sorted.length - 1] ?? 0, count: sorted.length };
}

export function ratioRow(props: Omit<BenchRow, 'ratio' | 'target'> & { floor: BenchRow['floor'] & object; atLeast?: number; atMost?: number }): BenchRow {
  const ratio = props.floor.value === 0 ? 0 : props.value / props.floor.value;
  const { atLeast, atMost, ...row } = props;
  const target =
    atLeast !== undefined
      ? { text: `≥ ${pct(atLeast)} of floor`, met: ratio >= atLeast }
      : atMost !== undefined
        ? { text: `≤ ${atMost}× floor`, met: ratio <= atMost }
        : undefined;
  return { ...row, ratio, ...(target ? { target } : {}) };
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(0)} %`;

function figure(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

export function printRows(rows: readonly BenchRow[]): void {
  let section = '';
  for (const row of rows) {
    if (row.section !== section) {
      section = row.section;
      console.log(`\n${section}`);
      console.log(`${'row'.padEnd(44)} ${'figure'.padStart(14)}  ${'floor'.padStart(14)}  ${'ratio'.padStart(7)}  target`);
    }
    const floor = row.floor ? figure(row.floor.value, row.unit) : '';
    const ratio = row.ratio === undefined ? '' : row.unit === 'req/s' || row.unit === '/s' ? pct(row.ratio) : `${row.ratio.toFixed(2)}×`;
    const target = row.target ? `${row.target.text} ${row.target.met ? 'met' : 'MISSED'}` : '';
    console.log(`${row.name.padEnd(44)} ${figure(row.value, row.unit).padStart(14)}  ${floor.padStart(14)}  ${ratio.padStart(7)}  ${target}`);
    if (row.detail || row.floor) console.log(`${''.padEnd(6)}${[row.detail, row.floor ? `floor: ${row.floor.name}` : ''].filter(Boolean).join('; ')}`);
  }
}

export async function writeJson(file: string, rows: readonly BenchRow[], meta: Record<string, unknown>): Promise<void> {
  const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg() };
  await writeFile(file, JSON.stringify({ machine, ...meta, rows }, null, 2) + '\n');
}
