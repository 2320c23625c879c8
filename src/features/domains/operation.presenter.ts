import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { Operation } from './operations.repository.js';
import type { Domain } from './domains.repository.js';

export const OperationSchema = z
  .object({
    id: z.string().meta({ example: exampleId('op') }),
    type: z.enum(['domain.register', 'domain.transfer', 'domain.renew', 'dnssec.enable', 'dnssec.disable']),
    status: z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled']),
    domain: z.string().meta({ example: 'example.com' }),
    livemode: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    result: z.record(z.string(), z.unknown()).nullable().meta({ example: null }),
    error: z.object({ code: z.string(), detail: z.string() }).nullable().meta({ example: null }),
  })
  .meta({ id: 'Operation' });

export function presentOperation(op: Operation): z.infer<typeof OperationSchema> {
  return {
    id: op.id,
    type: op.type,
    status: op.status,
    domain: op.domain,
    livemode: op.livemode,
    created_at: op.createdAt.toISOString(),
    updated_at: op.updatedAt.toISOString(),
    completed_at: op.completedAt?.toISOString() ?? null,
    result: op.result,
    error: op.error,
  };
}

export const DomainSchema = z
  .object({
    name: z.string().meta({ example: 'example.com' }),
    status: z
      .enum(['registering', 'active', 'transfer_pending', 'expired', 'failed', 'deleted'])
      .describe('`expired`: past `expires_at`, still renewable for 30 days; then `deleted` (records removed, name free again)'),
    livemode: z.boolean(),
    expires_at: z.iso.datetime().nullable(),
    auto_renew: z.boolean(),
    locked: z.boolean(),
    nameservers: z.array(z.string()).meta({ example: ['ns1.example.net', 'ns2.example.net'] }),
    whois_privacy: z.boolean().describe('WHOIS privacy as the registrar last confirmed it'),
    registrant_contact_id: z.string().meta({ example: exampleId('ct') }),
    admin_contact_id: z.string().nullable().meta({ example: null }),
    tech_contact_id: z.string().nullable().meta({ example: null }),
    version: z.number().int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Domain' });

export function presentDomain(domain: Domain): z.infer<typeof DomainSchema> {
  return {
    name: domain.name,
    status: domain.status,
    livemode: domain.livemode,
    expires_at: domain.expiresAt?.toISOString() ?? null,
    auto_renew: domain.autoRenew,
    locked: domain.locked,
    nameservers: domain.nameservers,
    whois_privacy: domain.whoisPrivacy,
    registrant_contact_id: domain.registrantContactId,
    admin_contact_id: domain.adminContactId,
    tech_contact_id: domain.techContactId,
    version: domain.version,
    created_at: domain.createdAt.toISOString(),
    updated_at: domain.updatedAt.toISOString(),
  };
}
