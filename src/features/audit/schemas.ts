import { z } from 'zod';
import { pageSchema, PaginationQuery } from '../../http/pagination.js';
import { AUDIT_LOG_ACTIONS, type ActorFilter } from './auditLog.repository.js';
import { AuditLogEntrySchema } from './auditLog.presenter.js';

const ACTOR = /^(?:(user|api_key):([A-Za-z0-9_]{1,64})|system)$/;

export const AuditLogQuery = PaginationQuery.extend({
  action: z.enum(AUDIT_LOG_ACTIONS).optional().describe('Only entries of this action'),
  actor: z
    .string()
    .regex(ACTOR, 'Expected `user:<user id>`, `api_key:<key id>` or `system`')
    .optional()
    .transform((value): ActorFilter | undefined => {
      const match = value === undefined ? null : ACTOR.exec(value);
      if (!match) return undefined;
      return match[1] ? { type: match[1] as 'user' | 'api_key', id: match[2]! } : { type: 'system' };
    })
    .meta({ example: 'api_key:key_4Gx1Qb8kPz2mN7rT5vW9yA' })
    .describe(
      'Only entries of this actor, as the entries name it: `user:<user id>` (what the user did signed in), ' +
        '`api_key:<key id>` (what that key did) or `system`',
    ),
});

export const AuditLogPage = pageSchema(AuditLogEntrySchema).meta({ id: 'AuditLogPage' });
