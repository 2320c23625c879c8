import { readFile } from 'node:fs/promises';
import { Connection } from '@temporalio/client';
import type { TemporalDevServer } from '../../scripts/lib/temporalDevServer.js';

export interface TemporalWatch {
  /** Stops probing and, when something went wrong during the run, prints what the server logged. */
  stop(): Promise<void>;
}

const PROBE_EVERY_MS = 5_000;
const PROBE_DEADLINE_MS = 10_000;
const LOGGED_ERRORS_SHOWN = 20;

/**
 * Watches the run's Temporal dev server from the side, so that a run whose tests all fail on Temporal
 * says when it began and what the server said. Every 5 s it asks for the tests' namespace twice: from
 * persistence (DescribeNamespace) and through the frontend's namespace registry (CountWorkflowExecutions,
 * which answers NamespaceNotFound when the registry lost the namespace or could not read it), and logs
 * each change between answered and failing. The server's own log is kept only at `warn`, so its error
 * lines are what is printed at the end.
 */
export function watchTemporal(props: {
  server: TemporalDevServer;
  namespace: string;
  logFile: string;
  log: (line: string) => void;
}): TemporalWatch {
  const { server, namespace, log } = props;
  const at = () => new Date().toISOString().slice(11, 19);
  let connection: Connection | undefined;
  let probes = 0;
  let failures = 0;
  let lastFailure: string | undefined;
  let running: Promise<void> | undefined;

  const probe = async () => {
    probes += 1;
    try {
      connection ??= await Connection.connect({ address: server.address, connectTimeout: PROBE_DEADLINE_MS });
      const deadline = Date.now() + PROBE_DEADLINE_MS;
      await connection.withDeadline(deadline, () => connection!.workflowService.describeNamespace({ namespace }));
      await connection.withDeadline(deadline, () => connection!.workflowService.countWorkflowExecutions({ namespace, query: '' }));
      if (lastFailure) log(`${at()} Temporal answers for namespace '${namespace}' again`);
      lastFailure = undefined;
    } catch (err) {
      failures += 1;
      const ended = server.endedEarly();
      const failure = ended ? `the server's process ended (${ended})` : String(err).split('\n')[0]!;
      if (failure !== lastFailure) log(`${at()} Temporal did not answer for namespace '${namespace}': ${failure}`);
      lastFailure = failure;
    }
  };
  const timer = setInterval(() => {
    running ??= probe().finally(() => (running = undefined));
  }, PROBE_EVERY_MS);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await running;
      await connection?.close();
      const ended = server.endedEarly();
      log(`Temporal watch: ${probes} probes, ${failures} failed${ended ? `; the server's process ended (${ended})` : ''}`);
      if (failures === 0 && !ended) return;
      const errors = (await readFile(props.logFile, 'utf8').catch(() => ''))
        .split('\n')
        .filter((line) => /"level":"(error|dpanic|panic|fatal)"|^panic:|^fatal error:/.test(line));
      if (errors.length === 0) return log('the Temporal server logged no error lines');
      log(`the Temporal server logged ${errors.length} error lines; the last ${Math.min(errors.length, LOGGED_ERRORS_SHOWN)}:`);
      for (const line of errors.slice(-LOGGED_ERRORS_SHOWN)) log(`  ${line.slice(0, 1_000)}`);
    },
  };
}
