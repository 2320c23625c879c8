import { domainToASCII, domainToUnicode } from 'node:url';
import { z } from 'zod';

/**
 * Domain-name validation, in one place: trimmed, lower-cased, IDN converted to punycode (the form
 * registries and DNS use), LDH labels of 1–63 characters without leading or trailing hyphens,
 * at most 253 characters, at least two labels. Whether the TLD is sold is checked against the
 * price table separately (it lives in the database).
 */
export interface DomainName {
  /** ASCII (punycode) form: what is stored and sent upstream. */
  name: string;
  /** The same name for people to read (`bücher.de` for `xn--bcher-kva.de`). */
  unicodeName: string;
  /** The labels after the first, e.g. `com` or `co.uk` (the registrable suffix is decided by the price table). */
  labels: string[];
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export type DomainNameProblem = { ok: false; reason: string };

export function parseDomainName(input: string): { ok: true; value: DomainName } | DomainNameProblem {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed.length === 0) return { ok: false, reason: 'Domain name is empty' };
  if (/\s/.test(trimmed)) return { ok: false, reason: 'Domain name contains white space' };
  // Checked first: URL parsing would read a numeric last label as part of an IPv4 address.
  if (/(^|\.)\d+$/.test(trimmed)) return { ok: false, reason: 'The TLD cannot be numeric' };
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === '') return { ok: false, reason: 'Domain name is not a valid internationalised name' };
  if (ascii.length > 253) return { ok: false, reason: 'Domain name is longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, reason: 'Domain name needs a TLD, e.g. example.com' };
  for (const label of labels) {
    if (label.length === 0) return { ok: false, reason: 'Domain name has an empty label' };
    if (label.length > 63) return { ok: false, reason: `Label "${label.slice(0, 20)}…" is longer than 63 characters` };
    if (!LABEL.test(label)) {
      return { ok: false, reason: `Label "${label}" may contain only letters, digits and inner hyphens` };
    }
    if (/^..--/.test(label) && !label.startsWith('xn--')) {
      return { ok: false, reason: `Label "${label}" has hyphens in positions 3 and 4, reserved for IDN` };
    }
  }
  return { ok: true, value: { name: ascii, unicodeName: domainToUnicode(ascii), labels } };
}

/** A zod string that becomes a DomainName, with the problem as a field error where it was given. */
export const DomainNameSchema = z
  .string()
  .max(300)
  .transform((value, ctx) => {
    const parsed = parseDomainName(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.reason, params: { type: 'domain_name_invalid' } });
      return z.NEVER;
    }
    return parsed.value;
  })
  .describe('A domain name; Unicode names are accepted and converted to punycode');
