import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { TerseOrgPath } from '../../http/pathParams.js';

const MoneySchema = z.object({ amount: z.number().int().describe('Integer minor units (cents)'), currency: z.literal('USD') });

export const AvailabilitySchema = z
  .object({
    name: z.string().meta({ example: 'xn--bcher-kva.de' }).describe('ASCII (punycode) form'),
    unicode_name: z.string().meta({ example: 'bücher.de' }),
    available: z.boolean(),
    premium: z.boolean(),
    price: MoneySchema.nullable().describe('One year of registration; null when not available'),
    reason: z.string().optional().meta({ example: 'premium name' }),
  })
  .meta({ id: 'Availability' });

export const AvailabilityQuery = z.object({
  name: z.string().min(1).max(300).describe('The name to check, e.g. `example.com` or `bücher.de`'),
});

export const BulkAvailabilityBody = z
  .object({ names: z.array(z.string().max(300)).min(1).max(500).meta({ example: ['example.com', 'bücher.de'] }).describe('1–500 names; each is answered in its slot') })
  .strict()
  .meta({ id: 'BulkAvailabilityInput' });

const SlotErrorSchema = z.object({
  name: z.string(),
  error: z.object({
    code: z
      .string()
      .describe('`INVALID_DOMAIN_NAME`, `DOMAIN_NAME_NOT_REGISTRABLE` (not one label below a sold suffix), `UPSTREAM_RATE_LIMITED` (not checked in time: retry it), `UPSTREAM_UNAVAILABLE`, …'),
    detail: z.string(),
    retry_after: z.number().int().min(1).optional().describe('Seconds after which checking this name again should succeed'),
  }),
});

export const BulkAvailabilitySchema = z
  .object({ results: z.array(z.union([AvailabilitySchema, SlotErrorSchema])).describe('In input order') })
  .meta({ id: 'BulkAvailability' });

export const TldListSchema = z
  .object({
    data: z.array(z.object({ tld: z.string().meta({ example: 'com' }), currency: z.literal('USD'), register: z.number().int(), renew: z.number().int(), transfer: z.number().int() })),
  })
  .meta({ id: 'TldPrices' });

export const OperationPath = TerseOrgPath.extend({ operation_id: z.string().min(1).max(64) });

const ContactId = z.string().min(1).max(64).meta({ example: exampleId('ct') });

const MaxPrice = z
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .optional()
  .describe('The most you agree to be charged, in integer minor units: a higher price is 409 `PRICE_EXCEEDS_MAX` and nothing is reserved');

const WhoisPrivacyAsked = z
  .boolean()
  .optional()
  .describe('Turn WHOIS privacy on once the domain is ours (best effort: `GET` the domain for the outcome; default off)');

export const RegisterDomainBody = z
  .object({
    name: z.string().min(1).max(300).meta({ example: 'example.com' }),
    years: z.number().int().min(1).max(10).default(1),
    registrant_contact_id: ContactId,
    admin_contact_id: ContactId.optional(),
    tech_contact_id: ContactId.optional(),
    nameservers: z.array(z.string().min(1).max(253)).max(13).optional(),
    auto_renew: z.boolean().optional(),
    whois_privacy: WhoisPrivacyAsked,
    max_price: MaxPrice.describe(
      'The most you agree to be charged for all `years`, in integer minor units: a higher price is 409 `PRICE_EXCEEDS_MAX`. ' +
        'Required for a premium name in live mode (else 422).',
    ),
  })
  .strict()
  .meta({ id: 'RegisterDomainInput' });

export const TransferDomainBody = z
  .object({
    name: z.string().min(1).max(300).meta({ example: 'example.org' }),
    auth_code: z.string().min(1).max(255).meta({ example: 'Xq7#Lp2-vK9m' }).describe('The transfer authorisation code from the losing registrar'),
    registrant_contact_id: ContactId,
    whois_privacy: WhoisPrivacyAsked,
    max_price: MaxPrice,
  })
  .strict()
  .meta({ id: 'TransferDomainInput' });

export const RenewDomainBody = z
  .object({ years: z.number().int().min(1).max(10).default(1), max_price: MaxPrice })
  .strict()
  .default({ years: 1 })
  .meta({ id: 'RenewDomainInput', example: { years: 1 } });

export const RenewedSchema = z
  .object({
    domain: z.string().meta({ example: 'example.com' }),
    expires_at: z.iso.datetime().nullable(),
    years: z.number().int(),
    charged: z.object({ amount: z.number().int(), currency: z.literal('USD') }),
    operation_id: z.string().meta({ example: exampleId('op') }),
  })
  .meta({ id: 'Renewal' });

export const UpdateDomainBody = z
  .object({
    auto_renew: z.boolean().optional(),
    locked: z.boolean().optional().describe('The registry transfer lock; unlock before asking for the auth code'),
    nameservers: z.array(z.string().min(1).max(253)).min(2).max(13).optional(),
    whois_privacy: z.boolean().optional().describe("Hide the registrant in public WHOIS behind the registrar's proxy details"),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'Give at least one of auto_renew, locked, nameservers, whois_privacy')
  .meta({ id: 'UpdateDomainInput', example: { auto_renew: true } });

export const AuthCodeSchema = z
  .object({
    auth_code: z.string().nullable().meta({ example: 'Xq7#Lp2-vK9m' }).describe('Null when the registrar e-mails it to the admin contact instead'),
    delivery: z.enum(['returned', 'emailed']),
  })
  .meta({ id: 'AuthCode' });

export const TestClockBody = z
  .object({ advance_days: z.number().int().min(1).max(400).describe("Days to move the domain's lifecycle forward") })
  .strict()
  .meta({ id: 'TestClockInput' });

export const TestClockSchema = z
  .object({
    domain: z.string().meta({ example: 'example.com' }),
    status: z.string().meta({ example: 'active' }).describe('The status now; the steps the advance brings follow within seconds'),
    expires_at: z.iso.datetime().nullable(),
    offset_days: z.number().int().describe('How far the test clock now runs ahead of real time, in days'),
    now: z.iso.datetime().describe("The domain's lifecycle time: real time plus the offset"),
  })
  .meta({ id: 'TestClock' });
