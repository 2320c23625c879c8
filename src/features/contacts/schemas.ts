import { z } from 'zod';
import { pageSchema } from '../../http/pagination.js';
import type { ContactFields } from './contacts.repository.js';
import { ContactSchema } from './contact.presenter.js';
import { OrgPath } from '../../http/pathParams.js';
import { isCountryCode } from './countries.js';

export const E164 = /^\+[1-9]\d{1,14}$/;
/** The registrars' own notation (EPP, DNSimple): `+<country code>.<number>`, e.g. `+44.2071234567`. */
const REGISTRAR_PHONE = /^\+[1-9]\d{0,2}\.\d+$/;
const toE164 = (value: string) => (REGISTRAR_PHONE.test(value) ? value.replace('.', '') : value);
const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]*$/;

/** C0 and C1 control characters (tabs and newlines included) have no place in a postal address. */
function printable(value: string): boolean {
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
  }
  return true;
}

const NOT_PRINTABLE = 'Must not contain control characters';

/** Required text: trimmed, 1 to `max` characters. */
const text = (max: number) => z.string().trim().min(1).max(max).refine(printable, NOT_PRINTABLE);

/** Optional text: trimmed, at most `max` characters; null or blank means none. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine(printable, NOT_PRINTABLE)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional();

const contactShape = {
  first_name: text(100).meta({ example: 'Ada' }),
  last_name: text(100).meta({ example: 'Lovelace' }),
  organization: optionalText(255).describe('Company name, if the contact acts for one'),
  email: z.string().trim().max(254).pipe(z.email()).meta({ description: 'E-mail address', format: 'email', example: 'ada@example.com' }),
  phone: z
    .string()
    .meta({ example: '+442071838750' })
    .trim()
    .overwrite(toE164)
    .regex(E164, 'Must be an E.164 phone number: "+", country code and number, digits only (e.g. +14155550123)')
    .describe('E.164 (`+14155550123`), or the registrars\' `+CC.NUMBER` (`+44.2071234567`); stored and returned as E.164'),
  address1: text(255).meta({ example: '12 St James’s Square' }),
  address2: optionalText(255),
  city: text(100).meta({ example: 'London' }),
  state: optionalText(100).describe('State, province or region'),
  postal_code: text(20).meta({ example: 'SW1Y 4LB' }).regex(POSTAL_CODE, 'Must be letters, digits, spaces and hyphens'),
  country: z
    .string()
    .meta({ example: 'GB' })
    .trim()
    .toUpperCase()
    .refine(isCountryCode, 'Must be an ISO 3166-1 alpha-2 country code, e.g. "DE"')
    .describe('ISO 3166-1 alpha-2 country code, e.g. `DE` (case-insensitive; stored upper case)'),
};

type Body = z.output<z.ZodObject<typeof contactShape>>;

function fieldsOf(body: Body): ContactFields {
  return {
    firstName: body.first_name,
    lastName: body.last_name,
    organization: body.organization ?? null,
    email: body.email,
    phone: body.phone,
    address1: body.address1,
    address2: body.address2 ?? null,
    city: body.city,
    state: body.state ?? null,
    postalCode: body.postal_code,
    country: body.country,
  };
}

/** The fields a PATCH sends; the ones it leaves out stay undefined and are not changed. */
function changesOf(body: Partial<Body>): Partial<ContactFields> {
  return {
    firstName: body.first_name,
    lastName: body.last_name,
    organization: body.organization,
    email: body.email,
    phone: body.phone,
    address1: body.address1,
    address2: body.address2,
    city: body.city,
    state: body.state,
    postalCode: body.postal_code,
    country: body.country,
  };
}

export const CreateContactBody = z.object(contactShape).strict().transform(fieldsOf).meta({ id: 'CreateContactInput' });

export const UpdateContactBody = z
  .object(contactShape)
  .partial()
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one field to change')
  .transform(changesOf)
  .meta({ id: 'UpdateContactInput', example: { city: 'Cambridge', postal_code: 'CB2 1TN' } });

export const ContactPath = OrgPath.extend({ contact_id: z.string().min(1).max(64).describe('Contact id (`ct_…`)') });

export const ContactPage = pageSchema(ContactSchema).meta({ id: 'ContactPage' });
