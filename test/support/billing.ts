import type { TestApp } from './testApp.js';
import { creditByOperator } from '../../src/features/billing/operatorCredit.js';

/**
 * Live money for a test: the API refuses unpaid live top-ups (403 PAYMENT_REQUIRED_FOR_LIVE_TOP_UP),
 * so live balances are credited the way an operator does it (`npm run billing:credit`).
 */
export async function creditLiveBalance(app: TestApp, orgId: string, amount: number): Promise<void> {
  await creditByOperator({ db: app.deps.db, orgId, livemode: true, amount, reason: 'test fixture', operator: 'vitest' });
}
