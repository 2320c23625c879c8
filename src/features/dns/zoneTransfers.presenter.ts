import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { ZoneTransfer } from './zoneTransfers.repository.js';

const TsigSchema = z.object({
  name: z.string().meta({ example: 'transfer-3f9a0c1b7d2e4a65.example.com.' }).describe('The key’s name, as the secondary’s configuration names it'),
  algorithm: z.literal('hmac-sha256'),
});

export const ZoneTransferSchema = z
  .object({
    id: z.string().meta({ example: exampleId('ztr') }),
    domain: z.string().meta({ example: 'example.com' }),
    servers: z.array(z.string()).meta({ example: ['192.0.2.1', '2001:db8::1'] }),
    tsig: TsigSchema,
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'ZoneTransfer' });

export const CreatedZoneTransferSchema = ZoneTransferSchema.extend({
  tsig: TsigSchema.extend({
    secret: z.string().meta({ example: 'q0vB3dC1yJ8o2m0b7Yx5kz2m7z3Xc4k8e1pQe2t7m9w=' }).describe('Base64; shown in this answer only, kept by no one but the DNS host'),
  }),
}).meta({ id: 'CreatedZoneTransfer' });

export const ZoneTransferList = z.object({ data: z.array(ZoneTransferSchema) }).meta({ id: 'ZoneTransferList' });

export function presentZoneTransfer(domain: string, transfer: ZoneTransfer): z.infer<typeof ZoneTransferSchema> {
  return {
    id: transfer.id,
    domain,
    servers: transfer.servers,
    tsig: { name: transfer.tsigName, algorithm: 'hmac-sha256' },
    created_at: transfer.createdAt.toISOString(),
  };
}
