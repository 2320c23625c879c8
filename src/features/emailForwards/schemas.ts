import { z } from 'zod';
import { DomainPath } from '../../http/pathParams.js';
import { DnsRecordSchema } from '../webhooks/index.js';
import { MAX_RECIPIENTS } from './addresses.js';

export const EmailForwardPath = DomainPath.extend({ forward_id: z.string().describe('The e-mail forward’s id (`emf_…`)') });

// Addresses are checked by the service (addresses.ts), so that a bad one is 422 EMAIL_FORWARD_INVALID.
export const CreateEmailForwardBody = z
  .object({
    local_part: z.string().min(1).max(200).meta({ example: 'hello' }).describe('The alias’s local part (`hello` for hello@example.com), or `*` for every address of the domain without one of its own'),
    to: z.array(z.string().max(320)).min(1).max(MAX_RECIPIENTS).meta({ example: ['someone@example.org'] }).describe(`Where its mail goes: 1 to ${MAX_RECIPIENTS} addresses`),
  })
  .meta({ id: 'CreateEmailForward' });

export const EmailForwardSchema = z
  .object({
    id: z.string().meta({ example: 'emf_4Jq9xY2bT7pLmN3kR8sVw1' }),
    domain: z.string().meta({ example: 'example.com' }),
    local_part: z.string().meta({ example: 'hello' }).describe('Lower case; `*` is the catch-all'),
    address: z.string().meta({ example: 'hello@example.com' }).describe('The address mail is accepted for (`*@example.com` for the catch-all)'),
    to: z.array(z.string()).meta({ example: ['someone@example.org'] }),
    livemode: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'EmailForward' });

export const CreatedEmailForwardSchema = EmailForwardSchema.extend({
  records: z.array(DnsRecordSchema).describe('The mail records this forward added to the domain: MX, SPF and DMARC for its first forward (those it had none of), else none'),
}).meta({ id: 'CreatedEmailForward' });

export const EmailForwardList = z.object({ data: z.array(EmailForwardSchema) }).meta({ id: 'EmailForwardList' });
