import { z } from 'zod';
import type { OperationQuote } from './beginOperation.js';

export const DryRunSchema = z
  .object({
    dry_run: z.literal(true),
    price: z.object({ amount: z.number().int().describe('What the request would charge, in minor units'), currency: z.literal('USD') }),
    available_after: z.number().int().describe('`available` once the charge were reserved, in minor units'),
  })
  .meta({ id: 'DryRun' });

export function presentDryRun(quote: OperationQuote): z.infer<typeof DryRunSchema> {
  return { dry_run: true, price: { amount: quote.amount, currency: quote.currency }, available_after: quote.availableAfter };
}
