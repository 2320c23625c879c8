import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { Balance } from './balances.repository.js';
import type { LedgerEntry } from './transactions.repository.js';
import type { TopUp } from './topUps.repository.js';

const MinorUnits = z.number().int().describe('Integer minor units of `currency` (cents)');

export const BalanceSchema = z
  .object({
    currency: z.literal('USD'),
    available: MinorUnits.describe('Spendable now, in minor units'),
    reserved: MinorUnits.describe('Held for operations in progress, in minor units'),
    livemode: z.boolean().describe('Test keys have their own balance, separate from the live one'),
    spent_this_month: MinorUnits.describe(
      "This calendar month's (UTC) reservations: held ones in full, captured ones for what was captured, in minor units",
    ),
    monthly_spend_limit: MinorUnits.nullable().describe('The monthly spending limit of this mode (`PATCH /orgs/{org_oid}`); null: none'),
  })
  .meta({ id: 'Balance' });

export const LedgerEntrySchema = z
  .object({
    id: z.string().meta({ example: exampleId('txn') }).describe('`txn_…`'),
    type: z
      .enum(['top_up', 'reservation', 'capture', 'release'])
      .describe('`top_up` adds to available; `reservation` moves available to reserved; `capture` spends reserved; `release` returns reserved to available'),
    amount: MinorUnits.describe('Always positive, in minor units; `type` says which way it moved'),
    currency: z.literal('USD'),
    operation_id: z.string().nullable().meta({ example: exampleId('op') }).describe('The operation charged, for reservation, capture and release'),
    description: z.string().meta({ example: 'Registration of example.com (1 year)' }),
    available_after: MinorUnits.describe('`available` right after this entry'),
    reserved_after: MinorUnits.describe('`reserved` right after this entry'),
    livemode: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'LedgerEntry' });

export function presentBalance(balance: Balance, spentThisMonth: number): z.infer<typeof BalanceSchema> {
  return {
    currency: balance.currency,
    available: balance.available,
    reserved: balance.reserved,
    livemode: balance.livemode,
    spent_this_month: spentThisMonth,
    monthly_spend_limit: balance.monthlySpendLimit,
  };
}

export function presentLedgerEntry(entry: LedgerEntry): z.infer<typeof LedgerEntrySchema> {
  return {
    id: entry.id,
    type: entry.type,
    amount: entry.amount,
    currency: entry.currency,
    operation_id: entry.operationId,
    description: entry.description,
    available_after: entry.availableAfter,
    reserved_after: entry.reservedAfter,
    livemode: entry.livemode,
    created_at: entry.createdAt.toISOString(),
  };
}

export const TopUpSchema = z
  .object({
    id: z.string().meta({ example: exampleId('tu') }).describe('`tu_…`'),
    amount: MinorUnits,
    currency: z.literal('USD'),
    status: z
      .enum(['pending', 'succeeded', 'failed', 'expired'])
      .describe('`pending` until paid; `succeeded` once the balance was credited; `failed` or `expired` when Checkout ended unpaid'),
    checkout_url: z.string().nullable().meta({ example: 'https://checkout.stripe.com/c/pay/cs_test_a1Example' }).describe('Where the payer pays (Stripe Checkout), while `pending`'),
    ledger_entry_id: z.string().nullable().meta({ example: null }).describe('The ledger entry that credited the balance, once `succeeded`'),
    livemode: z.boolean(),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'TopUp' });

export function presentTopUp(topUp: TopUp): z.infer<typeof TopUpSchema> {
  return {
    id: topUp.id,
    amount: topUp.amount,
    currency: topUp.currency,
    status: topUp.status,
    checkout_url: topUp.status === 'pending' ? topUp.checkoutUrl : null,
    ledger_entry_id: topUp.ledgerEntryId,
    livemode: topUp.livemode,
    created_at: topUp.createdAt.toISOString(),
    completed_at: topUp.completedAt?.toISOString() ?? null,
  };
}
