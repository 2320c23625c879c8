import { parseDomainName } from '../domainName.js';
import { cidrWithin, inCidrs, parseAddress, parseCidrs } from '../http/cidr.js';

/**
 * `allowed_domains` entries: an exact name (`example.com`, IDN accepted and stored as punycode) or
 * `*.suffix`, which matches every name ending in `.suffix` (not the suffix itself): `*.example.com`
 * matches `shop.example.com`, `*.com` every .com name. Undefined when invalid.
 */
export function canonicalDomainPattern(input: string): string | undefined {
  const text = input.trim().toLowerCase();
  if (text.startsWith('*.')) {
    const suffix = text.slice(2);
    // A one-label suffix (a TLD) is allowed: parse it with a stand-in first label.
    const parsed = parseDomainName(`x.${suffix}`);
    return parsed.ok ? `*.${parsed.value.name.slice(2)}` : undefined;
  }
  const parsed = parseDomainName(text);
  return parsed.ok ? parsed.value.name : undefined;
}

/** Whether a (canonical, punycode) domain name matches one of the patterns. */
export function domainMatches(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern));
}

/** Whether every name `inner` matches is matched by one of `outer`. */
function patternWithin(inner: string, outer: readonly string[]): boolean {
  if (!inner.startsWith('*.')) return domainMatches(outer, inner);
  return outer.some((pattern) => pattern.startsWith('*.') && (inner === pattern || inner.endsWith(pattern.slice(1))));
}

/** Whether the client address is one the key allows; an empty list allows every address. */
export function addressAllowed(allowedIps: readonly string[], address: string): boolean {
  return allowedIps.length === 0 || inCidrs(parseAddress(address), parseCidrs(allowedIps));
}

/** Whether a list is at least as narrow as `outer` (an empty `outer` allows everything). */
export function ipsWithin(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  const ranges = parseCidrs(outer);
  return inner.length > 0 && parseCidrs(inner).every((cidr) => ranges.some((range) => cidrWithin(cidr, range)));
}

export function domainsWithin(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  return inner.length > 0 && inner.every((pattern) => patternWithin(pattern, outer));
}
