import type { ParameterizedContext } from 'koa';
import { inCidrs, parseAddress, type Cidr } from './cidr.js';

/**
 * The one place that decides who the client is, for per-address limits and API keys' `allowed_ips`.
 * It is the socket's peer, unless that peer is one of the proxies `TRUST_PROXY` names: then
 * `X-Forwarded-For` is read from the right (each proxy appends the address it received from) and the
 * first hop that is not a trusted proxy is the client. Hops further left were written by whoever sent
 * the request and are never believed. IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) are written as the
 * IPv4 address they are.
 */
export function clientAddress(ctx: Pick<ParameterizedContext, 'socket' | 'get'>, trustedProxies: readonly Cidr[] = []): string {
  const peer = normalise(ctx.socket.remoteAddress ?? 'unknown');
  if (trustedProxies.length === 0 || !inCidrs(parseAddress(peer), trustedProxies)) return peer;
  const hops = ctx
    .get('x-forwarded-for')
    .split(',')
    .map((hop) => normalise(hop.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    if (!inCidrs(parseAddress(hops[i]!), trustedProxies)) return hops[i]!;
  }
  // Every hop is a proxy of ours: the leftmost is as close to the client as we can tell.
  return hops[0] ?? peer;
}

function normalise(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
