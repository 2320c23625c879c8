import type { PlatformDeps } from '../../platformDeps.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import { advanceDomainClock, type Domain, domainNamed } from '../domains/index.js';
import { NotFoundError } from '../../errors.js';
import { lifecycleNowOf } from './clock.js';
import { watchDomain } from './watch.js';
import { modeOf } from '../../db/modeScope.js';

export interface AdvanceTestClockProps {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config'>;
  principal: Principal;
  orgId: string;
  domainName: DomainName;
  days: number;
}

/**
 * Moves a test-mode domain's test clock forward: its lifecycle's "now" is real time plus the offset,
 * so it only has to look again (a signal) to do what those days bring, with the same e-mails, events
 * and charges as in real time. Live mode has no test clocks: 404, as for a route that is not there.
 */
export async function advanceTestClock(props: AdvanceTestClockProps): Promise<{ domain: Domain; now: Date }> {
  const { deps, principal } = props;
  if (principal.livemode) throw new NotFoundError('Test clocks exist in test mode only');
  const domain = await domainNamed(deps.db, modeOf(principal.livemode), props.orgId, props.domainName);
  const advanced = (await advanceDomainClock(deps.db, modeOf(principal.livemode), domain.id, props.days)) ?? domain;
  // A lifecycle started now watches from before the advance, so the days it skipped still happen.
  await watchDomain({ temporal: deps.temporal, config: deps.config, domain: advanced, reason: `test clock +${props.days}d`, clock: true, watchFrom: lifecycleNowOf(domain) });
  return { domain: advanced, now: lifecycleNowOf(advanced) };
}
