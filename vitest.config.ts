import { defineConfig } from 'vitest/config';
import LongPolesFirst from './test/support/longPolesFirst.js';

/**
 * @temporalio/client retries a failed call on a timer that closing its connection does not cancel
 * (node_modules/@temporalio/client/lib/grpc-retry.js): a test that points an app at an unreachable
 * Temporal and closes it leaves such a timer, which throws this when it fires. Test processes run
 * many files one after another, so it fires during a later file that has nothing to do with it.
 */
function isClosedTemporalRetry(error: { message?: string; stack?: string }): boolean {
  return error.message === 'Channel has been shut down' && (error.stack ?? '').includes('@temporalio/client/lib/grpc-retry');
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'cli/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    setupFiles: ['test/setup.ts'],
    // The Temporal SDK's native runtime is per process and does not suit worker threads.
    pool: 'forks',
    // Most files wait on Temporal, timers and sockets: several run at once on two cores. Each
    // process runs its files one after another without reloading the app's modules per file (that
    // was a third of the suite's CPU); files share no state but the process's metrics registry,
    // which test/metrics/metrics.test.ts reads as deltas.
    isolate: false,
    maxWorkers: 4,
    sequence: { sequencer: LongPolesFirst },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    onUnhandledError: (error) => !isClosedTemporalRetry(error),
    reporters: ['default', './test/support/summaryReporter.ts'],
  },
});
