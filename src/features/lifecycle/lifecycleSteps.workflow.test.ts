import { describe, expect, it } from 'vitest';
import { lifecycleNow, lifecycleSteps } from './lifecycleSteps.workflow.js';

const DAY = 86_400_000;
const durations = { autoRenewLeadMs: 30 * DAY, autoRenewRetryMs: DAY, noticeLeadsMs: [30 * DAY, 7 * DAY, DAY], graceMs: 30 * DAY, renewalRecheckMs: 3_600_000 };
const expiry = Date.parse('2027-11-23T12:00:00Z');

describe('lifecycleSteps', () => {
  it('without auto-renew: notices 30, 7 and 1 days before, expiry, deletion 30 days after', () => {
    expect(lifecycleSteps(expiry, false, durations)).toEqual([
      { kind: 'expiring', at: expiry - 30 * DAY, daysLeft: 30 },
      { kind: 'expiring', at: expiry - 7 * DAY, daysLeft: 7 },
      { kind: 'expiring', at: expiry - DAY, daysLeft: 1 },
      { kind: 'expire', at: expiry },
      { kind: 'delete', at: expiry + 30 * DAY },
    ]);
  });

  it('with auto-renew: an attempt every day from 30 days before until expiry, no expiring notices', () => {
    const steps = lifecycleSteps(expiry, true, durations);
    const attempts = steps.filter((s) => s.kind === 'auto_renew');
    expect(attempts).toHaveLength(30);
    expect(attempts[0]!.at).toBe(expiry - 30 * DAY);
    expect(attempts.at(-1)!.at).toBe(expiry - DAY);
    expect(steps.slice(-2).map((s) => s.kind)).toEqual(['expire', 'delete']);
  });

  it('reads "now" as real time plus the test clock', () => {
    expect(lifecycleNow(1_000, 2)).toBe(1_000 + 2 * DAY);
  });
});
