import { z } from 'zod';
import { pageSchema } from '../../http/pagination.js';
import { OrgPath } from '../../http/pathParams.js';
import { MemberSchema, OrganizationSchema } from './organization.presenter.js';

export const CreateOrganizationBody = z
  .object({ name: z.string().trim().min(1).max(100).meta({ example: 'Acme Ltd' }) })
  .strict()
  .meta({ id: 'CreateOrganizationInput' });

export const MemberPath = OrgPath.extend({ user_id: z.string().min(1).max(64) });

export const InviteMemberBody = z
  .object({
    email: z.email().max(320).meta({ example: 'grace@example.com' }),
    role: z.enum(['admin', 'member']).meta({ example: 'member' }),
  })
  .strict()
  .meta({ id: 'InviteMemberInput' });

export const ChangeRoleBody = z
  .object({ role: z.enum(['owner', 'admin', 'member']) })
  .strict()
  .meta({ id: 'ChangeMemberRoleInput' });

export const OrganizationPage = pageSchema(OrganizationSchema).meta({ id: 'OrganizationPage' });
export const MemberPage = pageSchema(MemberSchema).meta({ id: 'MemberPage' });

export const MonthlySpendLimit = z
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .nullable()
  .describe(
    'The most reservations may add up to in a calendar month (UTC), in integer minor units; null: no limit. ' +
      'A charge past it is 402 `SPEND_LIMIT_REACHED`.',
  );

export const UpdateOrganizationBody = z
  .object({ monthly_spend_limit: MonthlySpendLimit.describe("The caller's mode's monthly spending limit (minor units), or null for none") })
  .strict()
  .meta({ id: 'UpdateOrganizationInput', example: { monthly_spend_limit: 50_000 } });
