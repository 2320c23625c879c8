import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { Organization } from '../../auth/organizations.js';
import type { MemberView, OrgRole } from '../../auth/memberships.js';

const RoleSchema = z.enum(['owner', 'admin', 'member']);

export const OrganizationSchema = z
  .object({
    id: z.string().meta({ example: exampleId('org') }),
    name: z.string().meta({ example: 'Acme Ltd' }),
    plan: z.enum(['free', 'pro', 'enterprise']),
    created_at: z.iso.datetime(),
    role: RoleSchema.optional().describe("The caller's role (in lists)"),
  })
  .meta({ id: 'Organization' });

export const OrganizationSettingsSchema = OrganizationSchema.extend({
  monthly_spend_limit: z
    .number()
    .int()
    .nullable()
    .meta({ example: 50_000 })
    .describe("The monthly spending limit of the caller's mode, in minor units (null: none); each mode has its own"),
}).meta({ id: 'OrganizationSettings' });

export const MemberSchema = z
  .object({
    user_id: z.string().meta({ example: exampleId('usr') }),
    email: z.string().nullable().meta({ example: 'ada@example.com' }),
    name: z.string().nullable().meta({ example: 'Ada Lovelace' }),
    role: RoleSchema,
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Member' });

/** A member after a role change: `{user_id, email, role}`. */
export const MemberRoleSchema = z
  .object({ user_id: z.string().meta({ example: exampleId('usr') }), email: z.string().nullable().meta({ example: 'grace@example.com' }), role: RoleSchema })
  .meta({ id: 'MemberRole' });

export function presentOrganization(org: Organization & { role?: OrgRole }): z.infer<typeof OrganizationSchema> {
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    created_at: org.createdAt.toISOString(),
    ...(org.role ? { role: org.role } : {}),
  };
}

export function presentMember(member: MemberView): z.infer<typeof MemberSchema> {
  return {
    user_id: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    created_at: member.createdAt.toISOString(),
  };
}

export function presentMemberRole(member: { userId: string; email: string | null; role: OrgRole }): z.infer<typeof MemberRoleSchema> {
  return { user_id: member.userId, email: member.email, role: member.role };
}
