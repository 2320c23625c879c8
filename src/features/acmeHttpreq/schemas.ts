import { z } from 'zod';
import { hostName } from '../dns/index.js';

/** An ACME DNS-01 value: base64url of a SHA-256 digest, without padding (RFC 8555, 8.4). */
export const ACME_DIGEST = /^[A-Za-z0-9_-]{43}$/;
export const ACME_DIGEST_HINT = '43 base64url characters (the key authorization’s SHA-256 digest, RFC 8555 8.4)';

/** lego's `httpreq` body (its default mode, not `HTTPREQ_MODE=RAW`). */
export const HttpreqBody = z
  .object({
    fqdn: z
      .string()
      .max(254)
      .transform((value, ctx) => {
        const name = hostName(value, { underscores: true });
        if (!name) {
          ctx.addIssue({ code: 'custom', message: 'Must be a fully qualified name such as _acme-challenge.example.com.', params: { type: 'fqdn_invalid' } });
          return z.NEVER;
        }
        return name;
      })
      .meta({ example: '_acme-challenge.example.com.' })
      .describe('Where the TXT value goes: a name under one of the organisation’s domains (the trailing dot is optional)'),
    value: z.string().regex(ACME_DIGEST, `Must be ${ACME_DIGEST_HINT}`).meta({ example: 'LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM' }).describe(`The challenge value: ${ACME_DIGEST_HINT}`),
  })
  .meta({ id: 'HttpreqChallenge' });

export const HttpreqResultSchema = z
  .object({
    fqdn: z.string().meta({ example: '_acme-challenge.example.com.' }).describe('Fully qualified, with the trailing dot'),
    value: z.string().meta({ example: 'LHDhK3oGRvkiefQnx7OOczTY5Tic_xZ6HcMOc_gmtoM' }),
    domain: z.string().meta({ example: 'example.com' }).describe('The domain whose records hold it'),
    status: z.enum(['present', 'absent']).describe('Whether the value is at the name now: `present` after present, `absent` after cleanup'),
  })
  .meta({ id: 'HttpreqResult' });
