import type { components } from './schema.js';

export type DryRun = components['schemas']['DryRun'];

/**
 * Register, transfer and renew answer either their usual body or, with `Dry-Run: true`, the price
 * (`{dry_run: true, price, available_after}`): this tells them apart and narrows the type.
 */
export function isDryRun(answer: unknown): answer is DryRun {
  return typeof answer === 'object' && answer !== null && (answer as { dry_run?: unknown }).dry_run === true;
}

/** The answer of a request sent without `Dry-Run: true`, typed without the dry-run case. */
export function realAnswer<T>(answer: T): Exclude<T, DryRun> {
  if (isDryRun(answer)) throw new TypeError('Got a dry-run answer where a real one was expected (was Dry-Run: true sent?)');
  return answer as Exclude<T, DryRun>;
}
