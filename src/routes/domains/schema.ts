import { z } from 'zod';

const MoneySchema = z.object({ amount: z.number().int().describe('Integer minor units (cents)'), currency: z.literal('USD') });

export const AvailabilitySchema = z
  .object({
    name: z.string().describe('ASCII (punycode) form'),
    unicode_name: z.string(),
    available: z.boolean(),
    premium: z.boolean(),
    price: MoneySchema.nullable().describe('One year of registration; null when not available'),
    reason: z.string().optional(),
  })
  .meta({ id: 'Availability' });

export const AvailabilityQuery = z.object({
  name: z.string().min(1).max(300).describe('The name to check, e.g. `example.com` or `bücher.de`'),
});

export const BulkAvailabilityBody = z
  .object({ names: z.array(z.string().max(300)).min(1).max(500).describe('1–500 names; each is answered in its slot') })
  .strict()
  .meta({ id: 'BulkAvailabilityInput' });

const SlotErrorSchema = z.object({ name: z.string(), error: z.object({ code: z.string(), detail: z.string() }) });

export const BulkAvailabilitySchema = z
  .object({ results: z.array(z.union([AvailabilitySchema, SlotErrorSchema])).describe('In input order') })
  .meta({ id: 'BulkAvailability' });

export const TldListSchema = z
  .object({
    data: z.array(z.object({ tld: z.string(), currency: z.literal('USD'), register: z.number().int(), renew: z.number().int(), transfer: z.number().int() })),
  })
  .meta({ id: 'TldPrices' });
