/**
 * `npm run lifecycle:backfill`: gives every domain that is ours (active, or expired in its grace
 * period) its lifecycle workflow, for domains that became active before lifecycles existed. Safe to
 * run again: a running lifecycle only gets a signal to look at its domain (signal-with-start).
 * Uses the same configuration as the worker (DATABASE_URL, TEMPORAL_*, PAYLOAD_ENCRYPTION_KEYS).
 */
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { closeDeps, createDeps } from '../deps.js';
import { listWatchedDomains } from '../features/domains/domains.repository.js';
import { watchDomain } from '../features/lifecycle/watch.js';

const PAGE = 200;
const IN_FLIGHT = 20;

try {
  const config = loadConfig();
  const deps = await createDeps(config, createLogger(config, { component: 'lifecycle-backfill' }));
  try {
    let afterId = '';
    let watched = 0;
    for (;;) {
      const page = await listWatchedDomains(deps.db, { afterId, limit: PAGE });
      // A few signal-with-starts in flight at once: one at a time, each waits out the server's
      // round trip, and 100,000 domains took most of an hour (docs/bench.md, Scale).
      for (let i = 0; i < page.length; i += IN_FLIGHT) {
        await Promise.all(page.slice(i, i + IN_FLIGHT).map((domain) => watchDomain({ temporal: deps.temporal, config, domain, reason: 'backfill' })));
      }
      watched += page.length;
      if (page.length < PAGE) break;
      afterId = page.at(-1)!.id;
    }
    console.log(`Lifecycle workflows started or signalled for ${watched} domain${watched === 1 ? '' : 's'}.`);
  } finally {
    await closeDeps(deps);
  }
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
