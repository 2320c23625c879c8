import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { DnssecStatus, DnssecZone } from './dnssec.repository.js';
import type { DsRecord } from './dnssecKeys.js';
import type { DsRecordView } from './dnssec.contract.js';

const DsRecordSchema = z
  .object({
    key_tag: z.number().int().meta({ example: 2371 }),
    algorithm: z.number().int().meta({ example: 13 }).describe('13: ECDSA P-256 with SHA-256'),
    digest_type: z.number().int().meta({ example: 2 }).describe('2: SHA-256'),
    digest: z.string().meta({ example: '684a1f049d7d082b7f98691657da5a65764913df7f065f6f8c36edf62d66ca03' }).describe('Lower-case hexadecimal'),
  })
  .meta({ id: 'DsRecord' });

export const DnssecSchema = z
  .object({
    domain: z.string().meta({ example: 'example.com' }),
    status: z
      .enum(['off', 'signing', 'active', 'removing'])
      .describe('`signing`: a POST is being carried out; `active`: signed, and in live mode the DS is at the registrar; `removing`: the DS is being withdrawn, the zone stays signed until the parent\'s DS TTL has passed'),
    ds_records: z.array(DsRecordSchema).describe('The DS of the zone\'s key, as published at the registrar (live mode); empty while off'),
    dnskey: z.string().nullable().meta({ example: '257 3 13 KZ9dpqUM7JSSGWZoVcj02WLndu75hx+UBNVo5dCDa5V+tKS/b3EMIISa16/2/GPkosvG6g4YusbaWxu4XQBQfg==' }).describe('The zone\'s key (DNSKEY record data); null while off'),
    served: z
      .boolean()
      .describe(
        'Whether a DNS server serves the zone, signed with this key while DNSSEC is on. `false` in test mode without a test DNS host, or while another test domain of the same name holds the test host\'s zone: the key is then derived from the name and signs nothing (docs/api-guide.md, DNSSEC)',
      ),
    operation_id: z.string().nullable().meta({ example: exampleId('op') }).describe('The operation changing it now, or the last one that did'),
    livemode: z.boolean(),
  })
  .meta({ id: 'Dnssec' });

export function presentDs(ds: DsRecord): DsRecordView {
  return { key_tag: ds.keyTag, algorithm: ds.algorithm, digest_type: ds.digestType, digest: ds.digest };
}

/** `status` is the effective one (src/features/dns/dnssec.ts, effectiveStatus); no row is `off`. */
export function presentDnssec(domain: string, livemode: boolean, zone: DnssecZone | undefined, status: DnssecStatus, served: boolean): z.infer<typeof DnssecSchema> {
  const off = status === 'off';
  return {
    domain,
    status,
    ds_records: off ? [] : (zone?.dsRecords ?? []).map(presentDs),
    dnskey: off ? null : (zone?.dnskey ?? null),
    served,
    operation_id: zone?.operationId ?? null,
    livemode,
  };
}
