import net from 'node:net';
import { isLoopbackHost } from '../../http/loopback.js';

/**
 * Where webhooks may not go (docs/api-guide.md, Webhooks and events): addresses inside our own network or
 * machine, reachable only because the sender sits there. Checked on every address a name resolves
 * to, at send time, and on literal addresses when an endpoint is saved.
 */
const REFUSED: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.88.99.0', 24, 'ipv4', '6to4 relay'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  // ::/96 also holds ::1 and the deprecated IPv4-compatible addresses.
  ['::', 96, 'ipv6', 'loopback or unspecified'],
  ['::ffff:0:0', 96, 'ipv6', 'IPv4-mapped'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64 (embeds an IPv4 address)'],
  ['64:ff9b:1::', 48, 'ipv6', 'NAT64 (embeds an IPv4 address)'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001::', 32, 'ipv6', 'Teredo (embeds an IPv4 address)'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['2002::', 16, 'ipv6', '6to4 (embeds an IPv4 address)'],
  ['fc00::', 7, 'ipv6', 'unique-local'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const lists = REFUSED.map(([network, prefix, family, label]) => {
  const list = new net.BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, label };
});

/**
 * The kind of private network `address` (an IP literal) lies in, or null when webhooks may go there.
 * Only the kind: a delivery's `error` names it without the address, so an endpoint's owner never
 * learns what an internal name resolves to.
 */
export function refusedRange(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // An IPv4 address is checked against the IPv4 rules only: BlockList would also match it to
  // ::ffff:0:0/96. IPv6 addresses meet every rule, so a mapped one also names the IPv4 range.
  const hit = lists.find((rule) => (type === 'ipv6' || rule.family === 'ipv4') && rule.list.check(address, type));
  return hit ? hit.label : null;
}

/**
 * A URL's host as it will be resolved: brackets, case and trailing dots gone (`[::1]` → `::1`,
 * `LOCALHOST.` → `localhost`). The URL parser itself writes 127.1, 0x7f.1 and 2130706433 as
 * 127.0.0.1, so every spelling of an address or a name reaches the checks below as one.
 */
export function destinationHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
}

/** What a deployment allows besides public https receivers. */
export interface DestinationSettings {
  /** WEBHOOK_ALLOW_PRIVATE: http and any address (development and tests; refused in production). */
  allowPrivate: boolean;
  /** WEBHOOK_TEST_LOOPBACK (set by `npm run dev`; refused in production): test-mode endpoints may be http on loopback. */
  testLoopback: boolean;
}

/** Where an endpoint of this mode may receive. */
export interface AddressPolicy {
  allowPrivate: boolean;
  /** http or https to `localhost` or a loopback address, and nowhere else private. */
  allowLoopback: boolean;
}

export function addressPolicy(settings: DestinationSettings, mode: { livemode: boolean }): AddressPolicy {
  return { allowPrivate: settings.allowPrivate, allowLoopback: settings.testLoopback && !mode.livemode };
}

/**
 * What is wrong with an endpoint URL before anything is resolved: not https (http only under the
 * policy's allowances), credentials in it, or a host that is a refused address or a local name.
 * Names are checked again, after resolution, each time a webhook is sent.
 */
export function urlProblem(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL';
  }
  const host = destinationHost(url);
  const toLoopback = policy.allowLoopback && isLoopbackHost(host);
  const httpAllowed = policy.allowPrivate || toLoopback;
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) return 'Must be an https URL';
  if (url.username || url.password) return 'Must not contain credentials';
  if (policy.allowPrivate || toLoopback) return null;
  if (net.isIP(host)) {
    const refusal = refusedRange(host);
    return refusal ? `Must not point into a private network: ${host} is a ${refusal} address` : null;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return 'Must be a public host name';
  return null;
}
