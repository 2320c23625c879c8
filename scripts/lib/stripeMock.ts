import path from 'node:path';
import { goAvailable, goInstall, isExecutable, onPath, toolCacheDir } from './goTools.js';

/**
 * Stripe's own API mock (github.com/stripe/stripe-mock): the tests of live top-ups talk to it. Found
 * as `STRIPE_MOCK_PATH`, `stripe-mock` on PATH, or the cache; otherwise built once with `go install`
 * from the Go module proxy (seconds, a few MB).
 */
export const STRIPE_MOCK_VERSION = '0.203.0';
const MODULE = 'github.com/stripe/stripe-mock';

export function stripeMockCacheDir(): string {
  return toolCacheDir(`stripe-mock-v${STRIPE_MOCK_VERSION}`);
}

export async function resolveStripeMock(log: (line: string) => void): Promise<string> {
  const configured = process.env.STRIPE_MOCK_PATH;
  if (configured) {
    if (await isExecutable(configured)) return configured;
    throw new Error(`STRIPE_MOCK_PATH=${configured} is not an executable file`);
  }
  const cached = path.join(stripeMockCacheDir(), 'stripe-mock');
  const found = (await onPath('stripe-mock')) ?? ((await isExecutable(cached)) ? cached : undefined);
  if (found) return found;
  if (!goAvailable()) throw new Error('stripe-mock is not installed and there is no Go toolchain to build it (set STRIPE_MOCK_PATH)');
  log(`Building stripe-mock v${STRIPE_MOCK_VERSION} with go install into ${stripeMockCacheDir()} (first time only)`);
  await goInstall(stripeMockCacheDir(), [`${MODULE}@v${STRIPE_MOCK_VERSION}`], 'ignore');
  return cached;
}
