import { DryRunSchema } from '../../features/domains/index.js';

/** The 200 of a paid route sent `Dry-Run: true`. */
export const DRY_RUN_ANSWER = { description: 'Dry run: every check passed; nothing was reserved or started', schema: DryRunSchema };

/** The 422 of a route that takes a new name (registration, transfer). */
export const NOT_REGISTRABLE =
  'The name is not one label below a sold suffix (`www.example.com`: register `example.com`), or is in the service’s own ACME-DNS zone (`DOMAIN_NAME_NOT_REGISTRABLE`, at `body.name`)';
