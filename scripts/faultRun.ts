/**
 * `npm run fault`: six clients keep registering, renewing, topping up and writing DNS records with
 * Idempotency-Keys, retrying whatever got no definite answer, while PostgreSQL and Redis are stopped,
 * Temporal is frozen and the api and the worker are SIGKILLed twice; then it prints the 500s, the lost
 * and stuck operations, the double charges and the longest wait of a retried request, each beside its
 * target, and exits 1 if one is missed. Everything runs on loopback, on servers of its own
 * (scripts/fault/stack.ts). `--production` runs it on the cluster of docs/operations.md instead
 * (scripts/lib/cluster/) and breaks that cluster's engines (scripts/fault/productionFaults.ts), adding
 * each failover's time to recover. `--json` prints the report as JSON on stdout.
 */
import { parseArgs } from 'node:util';
import { createPool } from '../src/db/pool.js';
import { createLogger } from '../src/logger.js';
import { runFaults } from './fault/faults.js';
import { runProductionFaults, type FaultEvent } from './fault/productionFaults.js';
import { newClientLog, retryingClient, type ClientLog } from './fault/retryingClient.js';
import { INITIAL_CREDIT, startFaultStack, type FaultStack, type StackStopper } from './fault/stack.js';
import { formatReport, judge, recoveryFigures, waitForOperations, withFigures } from './fault/verdict.js';
import { runClient } from './fault/workload.js';

const CLIENTS = 6;
const OUTAGE_MS = 5_000;
/** contract 9.1: a key whose request failed or whose process died is free again within this. */
const WAIT_TARGET_MS = 10_000;
const GIVE_UP_AFTER_MS = 120_000;
const DRAIN_TIMEOUT_MS = 120_000;
/** Production mode: each failover recovered (first success after it) within this. */
const RECOVERY_TARGET_MS = 30_000;

const { values: args } = parseArgs({
  options: { json: { type: 'boolean', default: false }, production: { type: 'boolean', default: false }, 'settle-seconds': { type: 'string', default: '4' } },
});
const started = Date.now();
const log = (line: string) => console.error(`[fault ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
/** What each client is waiting on, for a run interrupted before its end. */
let clientLogs: ClientLog[] = [];

async function run(stack: FaultStack): Promise<boolean> {
  let running = true;
  const logs = (clientLogs = stack.customers.map(() => newClientLog()));
  const clients = stack.customers.map((customer, index) =>
    runClient({
      index,
      customer,
      running: () => running,
      // 198.51.100.0/24 (TEST-NET-2): one documentation address per simulated client.
      send: retryingClient({ baseUrl: stack.apiUrl, token: customer.testKey, forwardedFor: `198.51.100.${index + 1}`, giveUpAfterMs: GIVE_UP_AFTER_MS, log: logs[index]! }),
    }),
  );
  log(`${CLIENTS} clients working`);
  const timings = { outageMs: OUTAGE_MS, settleMs: Number(args['settle-seconds']) * 1000 };
  let events: FaultEvent[] = [];
  try {
    if ('production' in stack.engines) events = await runProductionFaults(stack, stack.engines.production, timings, log);
    else await runFaults(stack, stack.engines.dev, timings, log);
  } finally {
    running = false;
  }
  const outcomes = await Promise.all(clients);
  log('clients stopped; waiting for every accepted operation to end');
  const db = createPool(stack.databaseUrl, createLogger({ logLevel: 'silent' }));
  try {
    await waitForOperations(db, outcomes.flatMap((o) => [...o.accepted.keys()]), DRAIN_TIMEOUT_MS);
    const judged = await judge({ startedAt: started, db, logs, outcomes, initialCredit: INITIAL_CREDIT, waitTargetMs: WAIT_TARGET_MS, apiDown: stack.apiDown, crashes: stack.crashes });
    const report = withFigures(judged, recoveryFigures(events, logs, RECOVERY_TARGET_MS));
    console.error(formatReport(report));
    if (args.json) console.log(JSON.stringify(report, null, 2));
    return report.passed;
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  let stopper: StackStopper | undefined;
  process.once('exit', () => stopper?.lastResort());
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // `on`, not `once`: tsx relays the signal a second time, which must not end the process mid-cleanup.
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      log(`${signal}: stopping everything`);
      clientLogs.forEach(({ current }, i) => {
        if (current) log(`client ${i + 1} was waiting ${((Date.now() - current.startedAt) / 1000).toFixed(1)} s on ${current.what}: ${current.trail() || 'no answer yet'}`);
      });
      void (stopper?.close() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  }
  const stack = await startFaultStack({ clients: CLIENTS, production: args.production, log, onStopper: (s) => (stopper = s) });
  let passed = false;
  try {
    passed = await run(stack);
  } finally {
    await stack.close(!passed);
    if (!passed) log(`logs kept in ${stack.dir}`);
  }
  process.exitCode = passed ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 2;
});
