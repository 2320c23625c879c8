import { z } from 'zod';
import type { Contact } from '../db/repositories/contacts.js';

export const ContactSchema = z
  .object({
    id: z.string().describe('Contact id (`ct_…`)'),
    first_name: z.string(),
    last_name: z.string(),
    organization: z.string().nullable(),
    email: z.string(),
    phone: z.string().describe('E.164, e.g. `+14155550123`'),
    address1: z.string(),
    address2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable().describe('State, province or region'),
    postal_code: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2, upper case'),
    version: z.number().int().describe('Raised by one on every change; the ETag is this number in quotes'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Contact' });

/** The upstream registrar's contact id and the mode stay internal. */
export function presentContact(contact: Contact): z.infer<typeof ContactSchema> {
  return {
    id: contact.id,
    first_name: contact.firstName,
    last_name: contact.lastName,
    organization: contact.organization,
    email: contact.email,
    phone: contact.phone,
    address1: contact.address1,
    address2: contact.address2,
    city: contact.city,
    state: contact.state,
    postal_code: contact.postalCode,
    country: contact.country,
    version: contact.version,
    created_at: contact.createdAt.toISOString(),
    updated_at: contact.updatedAt.toISOString(),
  };
}
