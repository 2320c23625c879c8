import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { PaginationQuery, pageSchema } from '../../http/pagination.js';
import { DomainMoveSchema } from './domainMove.presenter.js';

export { DomainPath, OrgPath } from '../domains/schemas.js';

export const MovePath = z.object({ org_oid: z.string(), move_id: z.string().min(1).max(64).describe('The move (`mov_…`)') });

export const ProposeMoveBody = z
  .object({
    to_org_id: z
      .string()
      .min(1)
      .max(64)
      .describe('The organisation to move the domain to; the caller must be a member of it')
      .meta({ example: exampleId('org') }),
  })
  .strict()
  .meta({ id: 'ProposeDomainMoveInput' });

export const ListMovesQuery = PaginationQuery.extend({
  direction: z.enum(['outgoing', 'incoming']).describe('`outgoing`: moves of this organisation’s domains to others; `incoming`: moves to it'),
});

export const DomainMovePage = pageSchema(DomainMoveSchema).meta({ id: 'DomainMovePage' });
