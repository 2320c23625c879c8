/**
 * `npm run lifecycle:backfill`: gives every domain that is ours (active, or expired in its grace
 * period) its lifecycle workflow, for domains that became active before lifecycles existed. Safe to
 * run again: a running lifecycle only gets a signal to look at its domain (signal-with-start).
 * Uses the same configuration as the worker (DATABASE_URL, TEMPORAL_*, PAYLOAD_ENCRYPTION_KEYS).
 */
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { closeDeps, createDeps } from '../deps.js';
import { backfillLifecycles, watchDomain } from '../features/lifecycle/index.js';

try {
  const config = loadConfig();
  const deps = await createDeps(config, createLogger(config, { component: 'lifecycle-backfill' }));
  try {
    const watched = await backfillLifecycles({ db: deps.db, watch: (domain) => watchDomain({ temporal: deps.temporal, config, domain, reason: 'backfill' }) });
    console.log(`Lifecycle workflows started or signalled for ${watched} domain${watched === 1 ? '' : 's'}.`);
  } finally {
    await closeDeps(deps);
  }
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
