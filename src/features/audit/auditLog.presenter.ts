import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { AUDIT_TARGET_TYPES } from '../../audit/auditEvents.js';
import { AUDIT_LOG_ACTIONS, type AuditLogRow } from './auditLog.repository.js';

export const AuditLogEntrySchema = z
  .object({
    id: z.string().meta({ example: exampleId('evt') }),
    created_at: z.iso.datetime(),
    action: z.enum(AUDIT_LOG_ACTIONS).meta({ example: 'dns_record.updated' }),
    actor: z
      .object({
        type: z.enum(['user', 'api_key', 'system']),
        id: z.string().nullable().meta({ example: exampleId('key') }),
      })
      .describe(
        'Who did it: a user (`usr_…`, signed in) or an API key (`key_…`); `system` (id null) for what the service or its ' +
          'operators did: a leaked key revoked, an operator credit',
      ),
    target: z
      .object({
        type: z.enum(AUDIT_TARGET_TYPES),
        id: z.string().meta({ example: exampleId('rec') }).describe('For `membership`, the member’s user id'),
        name: z
          .string()
          .nullable()
          .meta({ example: 'www.example.com A' })
          .describe('What a person recognises it by, where there is such a name: a record’s name and type, a key’s name, a member’s or invitee’s e-mail, a domain or an endpoint’s URL'),
      })
      .describe('What it was done to'),
    request_id: z.string().nullable().describe('The `X-Request-Id` of the request that did it; null for the service’s own work'),
    livemode: z.boolean().describe('The mode it happened in: what test keys do is `false`'),
  })
  .meta({ id: 'AuditLogEntry' });

export type AuditLogEntry = z.infer<typeof AuditLogEntrySchema>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** A record's name as a person reads it: fully qualified, with its type. */
function recordName(data: Record<string, unknown>): string | null {
  const [name, type, domain] = [text(data.name), text(data.type), text(data.domain)];
  if (!name || !type || !domain) return null;
  return `${name === '@' ? domain : `${name}.${domain}`} ${type}`;
}

function targetName(row: AuditLogRow): string | null {
  const data = row.data ?? {};
  switch (row.targetType) {
    case 'dns_record':
      return recordName(data);
    case 'api_key':
    case 'membership':
      return row.targetLabel ?? text(data.name) ?? text(data.email);
    case 'invitation':
      return text(data.email);
    case 'domain':
    case 'domain_move':
      return text(data.domain) ?? text(data.name);
    case 'webhook_endpoint':
      return text(data.url);
    case 'acme_dns_registration':
      return text(data.fulldomain);
    case 'organization':
      return text(data.name);
    default:
      return null;
  }
}

/** Only who, what and where: an entry's other details (a key's restrictions, amounts, reasons) stay internal. */
export function presentAuditLogEntry(row: AuditLogRow): AuditLogEntry {
  const actor: AuditLogEntry['actor'] = row.actorKeyId
    ? { type: 'api_key', id: row.actorKeyId }
    : row.actorUserId
      ? { type: 'user', id: row.actorUserId }
      : { type: 'system', id: null };
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    action: row.action,
    actor,
    target: { type: row.targetType, id: row.targetId, name: targetName(row) },
    request_id: row.requestId,
    livemode: row.livemode,
  };
}
