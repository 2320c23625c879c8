import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { PaginationQuery, pageSchema } from '../../http/pagination.js';
import { DomainMoveSchema } from './domainMove.presenter.js';

/** An organisation's id as newId('org') makes it (src/ids.ts). */
const ORG_ID = /^org_[0-9A-Za-z]{22}$/;

export const MovePath = z.object({ org_oid: z.string(), move_id: z.string().min(1).max(64).describe('The move (`mov_…`)') });

export const ProposeMoveBody = z
  .object({
    to_org_id: z
      .string()
      .regex(ORG_ID, "Not an organisation id: one is org_ followed by 22 letters or digits, as its owners see it on their organisation's page")
      .describe('The organisation to move the domain to, any one: you need not belong to it, and the answer does not tell whether it exists')
      .meta({ example: exampleId('org') }),
  })
  .strict()
  .meta({ id: 'ProposeDomainMoveInput' });

export const ListMovesQuery = PaginationQuery.extend({
  direction: z.enum(['outgoing', 'incoming']).describe('`outgoing`: moves of this organisation’s domains to others; `incoming`: moves to it'),
});

export const DomainMovePage = pageSchema(DomainMoveSchema).meta({ id: 'DomainMovePage' });
