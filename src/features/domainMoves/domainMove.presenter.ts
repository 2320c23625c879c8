import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { effectiveStatus, type DomainMove } from './domainMoves.repository.js';

const OrgRef = z.object({ id: z.string().meta({ example: exampleId('org') }), name: z.string().meta({ example: 'Acme Ltd' }) });

export const DomainMoveSchema = z
  .object({
    id: z.string().meta({ example: exampleId('mov') }),
    domain: z.string().meta({ example: 'example.com' }),
    status: z
      .enum(['pending', 'accepted', 'cancelled', 'expired'])
      .describe('`pending` until the target accepts, either side cancels, or `expires_at` passes (then `expired`)'),
    livemode: z.boolean(),
    from_org: OrgRef.describe('The organisation the domain leaves'),
    to_org: OrgRef.describe('The organisation the domain goes to'),
    cancelled_by: z.enum(['source', 'target']).nullable().describe('Which side cancelled, when `cancelled`'),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().describe('7 days after it was proposed'),
    decided_at: z.iso.datetime().nullable().describe('When it was accepted or cancelled'),
  })
  .meta({ id: 'DomainMove' });

export type PresentedDomainMove = z.infer<typeof DomainMoveSchema>;

export function presentDomainMove(move: DomainMove): PresentedDomainMove {
  return {
    id: move.id,
    domain: move.domainName,
    status: effectiveStatus(move),
    livemode: move.livemode,
    from_org: { id: move.fromOrgId, name: move.fromOrgName },
    to_org: { id: move.toOrgId, name: move.toOrgName },
    cancelled_by: move.cancelledByOrgId === null ? null : move.cancelledByOrgId === move.fromOrgId ? 'source' : 'target',
    created_at: move.createdAt.toISOString(),
    expires_at: move.expiresAt.toISOString(),
    decided_at: move.decidedAt?.toISOString() ?? null,
  };
}
