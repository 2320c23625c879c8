import ipaddr from 'ipaddr.js';

/** One address range: its network address and prefix length, as ipaddr.js parses them. */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * A CIDR (`203.0.113.0/24`, `2001:db8::/32`) or a single address (as /32 or /128), in canonical form:
 * the network address (host bits cleared, IPv6 compressed) and the prefix. Undefined when invalid.
 */
export function canonicalCidr(input: string): string | undefined {
  const text = input.trim();
  try {
    if (!text.includes('/')) {
      const address = ipaddr.process(text);
      return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
    }
    const [address, prefix] = ipaddr.parseCIDR(text);
    const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
    return `${network.toString()}/${prefix}`;
  } catch {
    return undefined;
  }
}

/** Parses canonical CIDRs (canonicalCidr's output); throws on anything else. */
export function parseCidrs(list: readonly string[]): Cidr[] {
  return list.map((cidr) => ipaddr.parseCIDR(cidr));
}

/** An address as ipaddr.js reads it (an IPv4-mapped IPv6 address becomes the IPv4 one); undefined when invalid. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  return ipaddr.isValid(text) ? ipaddr.process(text) : undefined;
}

/** Whether the address lies in one of the ranges (an address of the other family never does). */
export function inCidrs(address: ipaddr.IPv4 | ipaddr.IPv6 | undefined, ranges: readonly Cidr[]): boolean {
  if (!address) return false;
  return ranges.some(([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix));
}

/** Whether every address of `inner` lies in `outer`. */
export function cidrWithin(inner: Cidr, outer: Cidr): boolean {
  return inner[0].kind() === outer[0].kind() && inner[1] >= outer[1] && inCidrs(inner[0], [outer]);
}
