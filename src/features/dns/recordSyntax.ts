import { domainToASCII } from 'node:url';

/**
 * The pieces every record type's check is built from: host names, unsigned numbers and hex data in
 * zone-file presentation form, and the problem a check reports. Kept apart from records.ts so each
 * family of types (svcbRecords.ts, digestRecords.ts, naptrRecords.ts) can use them.
 */
export interface RecordIssue {
  field: 'name' | 'content' | 'ttl' | 'priority';
  message: string;
  type: string;
}

/** A content check's answer: the normalised (stored) content, or what is wrong with it. */
export type ContentCheck = { content: string } | RecordIssue;

export const contentIssue = (message: string, type: string): RecordIssue => ({ field: 'content', message, type });

export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
export const HOST_HINT = 'a fully qualified host name such as mail.example.com';
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const LOOSE_HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A fully qualified host name, without its trailing dot: at least two labels, non-numeric TLD. */
export function hostName(input: string, options: { underscores: boolean }): string | undefined {
  const trimmed = input.trim().toLowerCase().replace(/\.$/, '');
  // eslint-disable-next-line no-control-regex -- IDN input is converted to punycode first
  const ascii = /^[\x00-\x7f]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  const label = options.underscores ? LOOSE_HOST_LABEL : HOST_LABEL;
  if (labels.length < 2 || !labels.every((l) => label.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) return undefined;
  return ascii;
}

/** A host name stored without its trailing dot, written absolute ("." stays the root). */
export const absolute = (host: string) => (host === '.' ? '.' : `${host}.`);

/** A decimal number within 0–max, without sign or fraction; leading zeros are dropped. */
export function unsigned(token: string | undefined, max: number): number | undefined {
  if (token === undefined || !/^\d{1,10}$/.test(token)) return undefined;
  const value = Number(token);
  return value <= max ? value : undefined;
}

/**
 * Hex data as the zone file writes it: digits in one or more chunks separated by white space.
 * Answered lower case in one piece (the form PowerDNS stores), or undefined when not hex.
 */
export function hexData(chunks: string[]): string | undefined {
  const hex = chunks.join('');
  return /^(?:[0-9a-fA-F]{2})+$/.test(hex) ? hex.toLowerCase() : undefined;
}

/** The record data split at white space (the fields of a record whose fields hold none). */
export const fieldsOf = (content: string) => content.trim().split(/\s+/).filter((f) => f !== '');
