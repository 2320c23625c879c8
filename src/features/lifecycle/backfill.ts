import type { Queryable } from '../../db/pool.js';
import { listWatchedDomains, type Domain } from '../domains/index.js';
import { modeOf } from '../../db/modeScope.js';

export interface BackfillProps {
  db: Queryable;
  /** Starts or signals one domain's lifecycle (watchDomain); safe to repeat. */
  watch: (domain: Domain) => Promise<unknown>;
  pageSize?: number;
  /** Watches in flight at once: one at a time, each would wait out the server's round trip alone (docs/bench.md, Scale). */
  inFlight?: number;
}

/**
 * Hands every domain that is ours, in both modes, to `watch` once: `npm run lifecycle:backfill`
 * (docs/operations.md). Returns how many it handed over.
 */
export async function backfillLifecycles(props: BackfillProps): Promise<number> {
  const pageSize = props.pageSize ?? 200;
  const inFlight = props.inFlight ?? 20;
  let watched = 0;
  for (const livemode of [true, false]) {
    for (let afterId = ''; ; ) {
      const page = await listWatchedDomains(props.db, modeOf(livemode), { afterId, limit: pageSize });
      for (let i = 0; i < page.length; i += inFlight) await Promise.all(page.slice(i, i + inFlight).map(props.watch));
      watched += page.length;
      if (page.length < pageSize) break;
      afterId = page.at(-1)!.id;
    }
  }
  return watched;
}
