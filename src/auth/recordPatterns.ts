import { domainToASCII } from 'node:url';

/**
 * `allowed_records` entries (docs/api-guide.md, Certificates): `<name>:<TYPE>`, where `<name>` is a
 * fully qualified name (any case, IDN or punycode, a trailing dot dropped) and one of its labels
 * other than the last may be `*`, which stands for one or more labels. So
 * `_acme-challenge.example.com:TXT` is the challenge record of example.com and of `*.example.com`
 * (ACME puts both at that name), and `_acme-challenge.*.example.com:TXT` those of every name under
 * example.com. Stored canonical: lower-case punycode name, upper-case type.
 */

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

interface Pattern {
  /** The labels before the `*` (empty without one, or when it leads), and those after it (or the whole name). */
  prefix: string;
  suffix: string;
  wildcard: boolean;
  type: string;
}

function split(canonical: string): Pattern {
  const colon = canonical.lastIndexOf(':');
  const name = canonical.slice(0, colon);
  const type = canonical.slice(colon + 1);
  const labels = name.split('.');
  const star = labels.indexOf('*');
  if (star < 0) return { prefix: '', suffix: name, wildcard: false, type };
  return { prefix: labels.slice(0, star).join('.'), suffix: labels.slice(star + 1).join('.'), wildcard: true, type };
}

/** The canonical form of an entry, or why it is not one; `types` are the record types there are. */
export function parseRecordPattern(input: string, types: readonly string[]): { ok: true; value: string } | { ok: false; reason: string } {
  const text = input.trim();
  const colon = text.lastIndexOf(':');
  if (colon < 0) return { ok: false, reason: 'Must be <name>:<TYPE>, e.g. _acme-challenge.example.com:TXT' };
  const type = text.slice(colon + 1).trim().toUpperCase();
  if (!types.includes(type)) return { ok: false, reason: `"${type.slice(0, 20)}" is not a record type; one of ${types.join(', ')}` };
  const rawName = text.slice(0, colon).trim().replace(/\.$/, '').toLowerCase();
  const labels = rawName.split('.');
  if (labels.filter((label) => label === '*').length > 1) return { ok: false, reason: 'Only one label may be "*"' };
  if (labels.at(-1) === '*') return { ok: false, reason: 'The last label cannot be "*": name the domain, e.g. _acme-challenge.*.example.com:TXT' };
  if (labels.length < 2) return { ok: false, reason: 'Give a fully qualified name, e.g. _acme-challenge.example.com' };
  // Unicode labels become punycode; `*` and `_` pass through unchanged.
  const ascii = domainToASCII(rawName);
  if (ascii === '' || ascii.length > 253) return { ok: false, reason: 'The name is not a valid domain name (at most 253 characters)' };
  const bad = ascii.split('.').find((label) => label !== '*' && !LABEL.test(label));
  if (bad !== undefined) {
    return { ok: false, reason: `Label "${bad.slice(0, 63)}" must be 1–63 letters, digits, "-" or "_" (not starting or ending with "-"), or "*"` };
  }
  return { ok: true, value: `${ascii}:${type}` };
}

/** Whether the fully qualified name (lower case, no trailing dot) fits the pattern's name. */
function nameFits(pattern: Pattern, fqdn: string): boolean {
  if (!pattern.wildcard) return fqdn === pattern.suffix;
  if (!fqdn.endsWith(`.${pattern.suffix}`)) return false;
  const before = fqdn.slice(0, -pattern.suffix.length - 1);
  // What `*` stands for is what remains once the prefix is taken off: at least one label.
  if (pattern.prefix === '') return before !== '';
  return before.startsWith(`${pattern.prefix}.`) && before.length > pattern.prefix.length + 1;
}

/** Whether a record (its fully qualified name, lower case without the trailing dot, and type) matches one of the patterns. */
export function recordMatches(patterns: readonly string[], fqdn: string, type: string): boolean {
  return patterns.some((entry) => {
    const pattern = split(entry);
    return pattern.type === type && nameFits(pattern, fqdn);
  });
}

/**
 * Whether one of the patterns names a record of the domain (canonical name): a record at the domain
 * or under it could match. A key restricted to `allowed_records` reads only such domains.
 */
/** What patternsNameDomain compares of each pattern, for a query that asks the same in SQL: its name's fixed suffix and whether a `*` stands before it. */
export function domainNamingParts(patterns: readonly string[]): { suffix: string; wildcard: boolean }[] {
  return patterns.map((entry) => {
    const { suffix, wildcard } = split(entry);
    return { suffix, wildcard };
  });
}

export function patternsNameDomain(patterns: readonly string[], domain: string): boolean {
  const under = (name: string, parent: string) => name === parent || name.endsWith(`.${parent}`);
  return patterns.some((entry) => {
    const { suffix, wildcard } = split(entry);
    // With `*`, the labels it stands for may also end in the domain's own (`_acme-challenge.*.com` names example.com).
    return under(suffix, domain) || (wildcard && domain.endsWith(`.${suffix}`));
  });
}
