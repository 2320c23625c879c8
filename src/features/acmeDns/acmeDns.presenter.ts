import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { fulldomainOf } from './acmeDns.js';
import type { AcmeDnsRegistration } from './registrations.repository.js';

const EXAMPLE = {
  username: 'c36f50e8-4632-44f0-83fe-e070fef28a10',
  subdomain: '8e5700ea-a4bf-41c7-8a77-e990661dcc6a',
  fulldomain: '8e5700ea-a4bf-41c7-8a77-e990661dcc6a.acme-dns.example.net',
};

const fields = {
  id: z.string().meta({ example: exampleId('acd') }),
  username: z.string().meta({ example: EXAMPLE.username }).describe('The credential’s user name (`X-Api-User`)'),
  fulldomain: z
    .string()
    .meta({ example: EXAMPLE.fulldomain })
    .describe('Where the TXT values are served: point `_acme-challenge.<your domain>` at it with a CNAME'),
  subdomain: z.string().meta({ example: EXAMPLE.subdomain }).describe('What an update names (`subdomain`)'),
  allowfrom: z.array(z.string()).meta({ example: ['192.0.2.0/24'] }).describe('CIDRs updates may come from (canonical form); empty: anywhere'),
  created_at: z.iso.datetime(),
};

export const AcmeDnsRegistrationSchema = z
  .object({
    ...fields,
    txt_updated_at: z.iso.datetime().nullable().describe('When a TXT value was last set; null: never'),
    livemode: z.boolean(),
  })
  .meta({ id: 'AcmeDnsRegistration' });

/** What `POST /register` answers, as acme-dns does (plus `id` and `created_at`): the only time the password is shown. */
export const AcmeDnsCredentialsSchema = z
  .object({
    ...fields,
    password: z.string().meta({ example: 'htB9mR9DYgcu9bX5afHF62erXaH2TS7bg9KW3F7Z' }).describe('The credential’s password (`X-Api-Key`). Shown only here, once: store it in a secrets manager.'),
  })
  .meta({ id: 'AcmeDnsCredentials' });

export function presentAcmeDnsRegistration(row: AcmeDnsRegistration): z.infer<typeof AcmeDnsRegistrationSchema> {
  return {
    id: row.id,
    username: row.username,
    fulldomain: fulldomainOf(row),
    subdomain: row.subdomain,
    allowfrom: row.allowfrom,
    created_at: row.createdAt.toISOString(),
    txt_updated_at: row.txtUpdatedAt?.toISOString() ?? null,
    livemode: row.livemode,
  };
}

export function presentAcmeDnsCredentials(row: AcmeDnsRegistration, password: string): z.infer<typeof AcmeDnsCredentialsSchema> {
  return {
    id: row.id,
    username: row.username,
    password,
    fulldomain: fulldomainOf(row),
    subdomain: row.subdomain,
    allowfrom: row.allowfrom,
    created_at: row.createdAt.toISOString(),
  };
}
