import type { Context } from 'koa';
import { z } from 'zod';

/**
 * `Dry-Run: true` on a paid request (register, transfer, renew): every check of the real request
 * runs and fails the same way, and nothing is reserved, written, started or stored for idempotency.
 */
export const DryRunHeader = z.object({
  'dry-run': z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .describe(
      '`true`: run every check of this request (validation, scopes, availability, contacts, state, price, funds and ' +
        'spending limits: same errors, same statuses) and answer 200 with the price, without reserving, writing or starting anything',
    ),
});

/** Read before validation (by the idempotency layer); the same test the schema above applies. */
export function isDryRun(ctx: Pick<Context, 'get'>): boolean {
  return ctx.get('dry-run') === 'true';
}
