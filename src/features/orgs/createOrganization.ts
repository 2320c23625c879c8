import type pg from 'pg';
import { insertOrganization, type Organization } from '../../auth/organizations.js';
import { insertMembership } from '../../auth/memberships.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { Principal } from '../../auth/principal.js';
import { newId } from '../../ids.js';
import { requireLiveCredential } from './liveCredential.js';

export interface CreateOrganizationProps {
  principal: Principal;
  name: string;
  requestId: string;
}

/**
 * Creates an organisation with the caller as its owner (sessions and live keys only), in the caller's
 * transaction: the route stores its answer there too (answerInTransaction).
 */
export async function createOrganizationWithin(tx: pg.PoolClient, props: CreateOrganizationProps): Promise<Organization> {
  requireLiveCredential(props.principal);
  const org = await insertOrganization(tx, { id: newId('org'), name: props.name });
  await insertMembership(tx, { orgId: org.id, userId: props.principal.user.id, role: 'owner' });
  await auditCallerAction(tx, props, {
    action: 'org.created',
    orgId: org.id,
    targetType: 'organization',
    targetId: org.id,
    data: { name: org.name },
  });
  return org;
}
