import { z } from 'zod';
import { canonicalCidr } from '../../http/cidr.js';
import { pageSchema } from '../../http/pagination.js';
import { OrgPath } from '../../http/pathParams.js';
import { ACME_DIGEST, ACME_DIGEST_HINT } from '../acmeHttpreq/index.js';
import { AcmeDnsRegistrationSchema } from './acmeDns.presenter.js';

/**
 * acme-dns is written in Go, whose JSON decoding matches field names whatever their case, and some
 * clients rely on it (goacmedns, used by lego and cert-manager, sends `SubDomain` and `Txt`): top-level
 * names are matched the same way here.
 */
function caseInsensitiveKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key.toLowerCase(), field]));
}

const Allowfrom = z
  .array(z.string().max(100))
  .max(20)
  .transform((entries, ctx) => {
    const canonical = entries.map((entry) => canonicalCidr(entry));
    canonical.forEach((cidr, i) => {
      if (cidr === undefined) ctx.addIssue({ code: 'custom', path: [i], message: 'Must be an IPv4 or IPv6 CIDR (or a single address)', params: { type: 'cidr_invalid' } });
    });
    return [...new Set(canonical.filter((cidr): cidr is string => cidr !== undefined))];
  })
  .describe('CIDRs updates may come from, e.g. `["192.0.2.0/24", "2001:db8::/32"]`; elsewhere 403 `IP_NOT_ALLOWED`. Empty or left out: anywhere');

export const RegisterBody = z
  .preprocess(caseInsensitiveKeys, z.object({ allowfrom: Allowfrom.optional() }).strict())
  .optional()
  .transform((body) => ({ allowfrom: body?.allowfrom ?? [] }))
  .meta({ id: 'AcmeDnsRegisterInput', example: { allowfrom: ['192.0.2.0/24'] } });

export const UpdateBody = z
  .preprocess(
    caseInsensitiveKeys,
    z.object({
      subdomain: z.string().max(100).describe('The registration’s `subdomain`'),
      txt: z.string().regex(ACME_DIGEST, `Must be ${ACME_DIGEST_HINT}`).describe(`The challenge value: ${ACME_DIGEST_HINT}`),
    }),
  )
  .meta({ id: 'AcmeDnsUpdateInput', example: { subdomain: '8e5700ea-a4bf-41c7-8a77-e990661dcc6a', txt: 'LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM' } });

export const UpdateHeaders = z.object({
  'x-api-user': z.string().describe('The registration’s `username`'),
  'x-api-key': z.string().describe('The registration’s `password`'),
});

export const UpdatedSchema = z.object({ txt: z.string().meta({ example: 'LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM' }) }).meta({ id: 'AcmeDnsUpdated' });

export const RegistrationPath = OrgPath.extend({ registration_id: z.string().min(1).max(64) });

export const RegistrationPage = pageSchema(AcmeDnsRegistrationSchema).meta({ id: 'AcmeDnsRegistrationPage' });
