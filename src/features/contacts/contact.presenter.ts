import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { Contact } from './contacts.repository.js';

export const ContactSchema = z
  .object({
    id: z.string().meta({ example: exampleId('ct') }).describe('Contact id (`ct_…`)'),
    first_name: z.string().meta({ example: 'Ada' }),
    last_name: z.string().meta({ example: 'Lovelace' }),
    organization: z.string().nullable().meta({ example: null }),
    email: z.string().meta({ example: 'ada@example.com' }),
    phone: z.string().meta({ example: '+442071838750' }).describe('E.164, e.g. `+14155550123`'),
    address1: z.string().meta({ example: '12 St James’s Square' }),
    address2: z.string().nullable().meta({ example: null }),
    city: z.string().meta({ example: 'London' }),
    state: z.string().nullable().meta({ example: null }).describe('State, province or region'),
    postal_code: z.string().meta({ example: 'SW1Y 4LB' }),
    country: z.string().meta({ example: 'GB' }).describe('ISO 3166-1 alpha-2, upper case'),
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
