import { z } from 'zod';
import { pageSchema } from '../../http/pagination.js';
import { LedgerEntrySchema, TopUpSchema } from './billing.presenter.js';
import { OrgPath } from '../../http/pathParams.js';

/** The most one top-up may add, in minor units (100,000.00 USD). */
export const MAX_TOP_UP = 10_000_000;

export const TopUpBody = z
  .object({
    amount: z.number().int().min(1).max(MAX_TOP_UP).meta({ example: 2_000 }).describe(`Integer minor units (cents), 1 to ${MAX_TOP_UP}`),
  })
  .strict()
  .meta({ id: 'TopUpInput' });

export const LedgerEntryPage = pageSchema(LedgerEntrySchema).meta({ id: 'LedgerEntryPage' });

export const TopUpPath = OrgPath.extend({ top_up_id: z.string().min(1).max(64) });

export const TopUpPage = pageSchema(TopUpSchema).meta({ id: 'TopUpPage' });
