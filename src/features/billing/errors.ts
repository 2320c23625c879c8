/**
 * The errors billing refuses with, beside it: each names its code of the one list
 * (src/http/errorCodes.ts), whose entry gives the HTTP status, and its words.
 */
import { ApiError } from '../../errors.js';

/** 402: the balance's `available` is short of what an action costs; nothing was reserved. */
export class InsufficientFundsError extends ApiError {
  constructor(
    readonly available: number,
    readonly needed: number,
    currency = 'USD',
  ) {
    super(
      'INSUFFICIENT_FUNDS',
      `Insufficient funds: ${available} available, ${needed} needed (${currency} minor units). Top up the balance and retry.`,
    );
  }
}

/**
 * 402: the charge would take a month's spending (captured plus reserved, this calendar month in UTC)
 * past a monthly spending limit; `limit` names which (the organisation's in this mode, or the key's).
 */
export class SpendLimitReachedError extends ApiError {
  constructor(props: { limit: string; monthlyLimit: number; spent: number; amount: number }) {
    super(
      'SPEND_LIMIT_REACHED',
      `${props.limit} of ${props.monthlyLimit} (USD minor units) would be exceeded: ${props.spent} spent or reserved this month, ` +
        `${props.amount} more asked. Nothing was reserved; raise the limit or wait for next month.`,
    );
  }
}

/**
 * 403: live money must be paid for. A live top-up through the API is refused until a payment provider
 * is wired; an operator credits a live balance with `npm run billing:credit` (src/cli/billingCredit.ts).
 */
export class PaymentRequiredForLiveTopUpError extends ApiError {
  constructor() {
    super(
      'PAYMENT_REQUIRED_FOR_LIVE_TOP_UP',
      'A live balance holds only money that was paid; live top-ups through the API are not available. Contact support to credit your live balance, or use a test key for a free test-mode top-up.',
    );
  }
}
