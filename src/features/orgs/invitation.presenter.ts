import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { Invitation, PendingInvitation } from './invitations.repository.js';

const InvitedRoleSchema = z.enum(['admin', 'member']);

export const InvitationSchema = z
  .object({
    invitation_id: z.string().meta({ example: exampleId('inv') }),
    email: z.string().meta({ example: 'grace@example.com' }),
    role: InvitedRoleSchema,
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'Invitation' });

export const PendingInvitationSchema = InvitationSchema.extend({
  org_id: z.string().meta({ example: exampleId('org') }),
  org_name: z.string().meta({ example: 'Acme Ltd' }),
  created_at: z.iso.datetime(),
}).meta({ id: 'PendingInvitation' });

export const AcceptedInvitationSchema = z
  .object({ org_id: z.string().meta({ example: exampleId('org') }), role: InvitedRoleSchema })
  .meta({ id: 'AcceptedInvitation' });

/** What the inviter sees: nothing about whether the address belongs to anyone. */
export function presentInvitation(invitation: Invitation): z.infer<typeof InvitationSchema> {
  return {
    invitation_id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    expires_at: invitation.expiresAt.toISOString(),
  };
}

export function presentPendingInvitation(invitation: PendingInvitation): z.infer<typeof PendingInvitationSchema> {
  return {
    ...presentInvitation(invitation),
    org_id: invitation.orgId,
    org_name: invitation.orgName,
    created_at: invitation.createdAt.toISOString(),
  };
}
