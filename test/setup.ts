// Runs before every test file: the Temporal runtime must be installed before the first connection or
// worker, and quiet unless something is wrong. Test processes run many files one after another
// (vitest.config.ts), and a process installs its runtime once.
import { afterAll } from 'vitest';
import { createLogger } from '../src/logger.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';
import { stopStartedProcesses } from './support/processes.js';

const INSTALLED = Symbol.for('domain-service.test.temporal-runtime');
const processState = globalThis as { [INSTALLED]?: true };
if (!processState[INSTALLED]) {
  installTemporalRuntime(createLogger({ logLevel: 'error' }), { level: 'ERROR' });
  processState[INSTALLED] = true;
}

// A file's processes are its own: whatever it left running (a test that failed or timed out) ends with it.
afterAll(() => stopStartedProcesses());
