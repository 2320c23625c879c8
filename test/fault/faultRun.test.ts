/**
 * The fault run (`npm run fault`, scripts/faultRun.ts) once, with shorter pauses between the faults:
 * PostgreSQL and Redis stopped, Temporal frozen, the api and the worker SIGKILLed twice, under six
 * retrying clients. It starts servers of its own on loopback ports, so it never touches the shared ones.
 */
import { describe, expect, it } from 'vitest';
import { runTs } from '../support/processes.js';
import type { FaultReport } from '../../scripts/fault/verdict.js';

const TIMEOUT_MS = 420_000;
/** Interrupted (SIGINT: it stops its servers and exits 130) early enough to show its log before vitest's timeout. */
const INTERRUPT_AFTER_MS = TIMEOUT_MS - 45_000;

describe('the fault run', () => {
  it('answers no 500, loses and double-charges nothing, and never blocks a retry over 10 s', { timeout: TIMEOUT_MS }, async () => {
    const run = runTs('scripts/faultRun.ts', ['--json', '--settle-seconds', '3'], {});
    let stdout = '';
    run.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const interrupt = setTimeout(() => run.child.kill('SIGINT'), INTERRUPT_AFTER_MS);
    const code = await run.exited.finally(() => clearTimeout(interrupt));
    // On failure: the run's own report, with the requests and errors behind each figure.
    const printed = run.output().slice(-6_000);
    expect(code, `interrupted after ${INTERRUPT_AFTER_MS / 1000} s without an end; its log:\n${printed}`).not.toBe(130);
    const report = JSON.parse(stdout) as FaultReport;
    const figures = Object.fromEntries(report.figures.map((f) => [f.name, f.value]));
    // The faults happened and were retried through: requests failed on the network and were sent again.
    expect(Object.keys(report.answers).filter((answer) => answer.startsWith('network error'))).not.toEqual([]);
    expect(report.retriedRequests).toBeGreaterThan(0);
    expect(report.operations).toBeGreaterThan(0);
    expect(figures, printed).toMatchObject({
      '500 answers': 0,
      'api or worker crashes (ended unkilled)': 0,
      'operations or requests lost': 0,
      'operations stuck (not ended)': 0,
      'double charges': 0,
      'other ledger mismatches': 0,
      'unexpected definite answers': 0,
    });
    expect(figures['longest a retry was blocked'], printed).toBeLessThanOrEqual(10);
    expect(figures['longest IDEMPOTENCY_KEY_IN_USE refusal'], printed).toBeLessThanOrEqual(10);
    expect(code, printed).toBe(0);
  });
});
