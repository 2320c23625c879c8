import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { effectiveStatus, type DomainMove } from './domainMoves.repository.js';

const OrgRef = z.object({ id: z.string().meta({ example: exampleId('org') }), name: z.string().meta({ example: 'Acme Ltd' }) });
const TargetRef = OrgRef.extend({
  name: z
    .string()
    .nullable()
    .meta({ example: 'Acme Ltd' })
    .describe("`null` to the source until the target has accepted or cancelled: a move may be proposed to any organisation id, and its answer does not tell whether one exists"),
});

export const DomainMoveSchema = z
  .object({
    id: z.string().meta({ example: exampleId('mov') }),
    domain: z.string().meta({ example: 'example.com' }),
    status: z
      .enum(['pending', 'accepted', 'cancelled', 'expired'])
      .describe(
        '`pending` until the target accepts, either side cancels, or `expires_at` passes (then `expired`); removing or demoting its proposer in the source cancels it (`cancelled_by: source`)',
      ),
    livemode: z.boolean(),
    from_org: OrgRef.describe('The organisation the domain leaves'),
    to_org: TargetRef.describe('The organisation the domain goes to'),
    cancelled_by: z.enum(['source', 'target']).nullable().describe('Which side cancelled, when `cancelled`'),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().describe('7 days after it was proposed'),
    decided_at: z.iso.datetime().nullable().describe('When it was accepted or cancelled'),
  })
  .meta({ id: 'DomainMove' });

export type PresentedDomainMove = z.infer<typeof DomainMoveSchema>;

/**
 * The target's name as `viewerOrgId` may see it. The source sees it only once the target has
 * answered (accepted or cancelled): before, the name would tell the proposer whether an
 * organisation with that id exists (docs/api-guide.md, Moving a domain).
 */
export function targetNameSeenBy(move: DomainMove, viewerOrgId: string): string | null {
  if (viewerOrgId === move.toOrgId) return move.toOrgName;
  const targetAnswered = move.status === 'accepted' || (move.status === 'cancelled' && move.cancelledByOrgId === move.toOrgId);
  return targetAnswered ? move.toOrgName : null;
}

/** The move as one of its sides (`viewerOrgId`) reads it. */
export function presentDomainMove(move: DomainMove, viewerOrgId: string): PresentedDomainMove {
  return {
    id: move.id,
    domain: move.domainName,
    status: effectiveStatus(move),
    livemode: move.livemode,
    from_org: { id: move.fromOrgId, name: move.fromOrgName },
    to_org: { id: move.toOrgId, name: targetNameSeenBy(move, viewerOrgId) },
    cancelled_by: move.cancelledByOrgId === null ? null : move.cancelledByOrgId === move.fromOrgId ? 'source' : 'target',
    created_at: move.createdAt.toISOString(),
    expires_at: move.expiresAt.toISOString(),
    decided_at: move.decidedAt?.toISOString() ?? null,
  };
}
