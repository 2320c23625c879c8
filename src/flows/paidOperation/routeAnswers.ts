import type { AppContext } from '../../http/context.js';
import { answerAccepted, DryRunSchema, presentDryRun } from '../../features/domains/index.js';

/** The 200 of a paid route sent `Dry-Run: true`. */
export const DRY_RUN_ANSWER = { description: 'Dry run: every check passed; nothing was reserved or started', schema: DryRunSchema };

/** The 422 of a route that takes a new name (registration, transfer). */
export const NOT_REGISTRABLE =
  'The name is not one label below a sold suffix (`www.example.com`: register `example.com`), or is in the service’s own ACME-DNS zone (`DOMAIN_NAME_NOT_REGISTRABLE`, at `body.name`)';

/**
 * The answer of a paid route whose work is only ever asynchronous (registration, transfer): with
 * `Dry-Run: true` the quote (200, nothing kept), else the operation begun (202, `Location`).
 */
export async function answerPaidStart<P>(
  ctx: AppContext,
  dryRun: boolean | undefined,
  props: P,
  steps: { quote: (props: P) => Promise<Parameters<typeof presentDryRun>[0]>; begin: (props: P) => Promise<Parameters<typeof answerAccepted>[1]> },
): Promise<void> {
  if (dryRun) {
    ctx.body = presentDryRun(await steps.quote(props));
    return;
  }
  answerAccepted(ctx, await steps.begin(props));
}
