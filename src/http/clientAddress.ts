import type { ParameterizedContext } from 'koa';

/**
 * The one place that decides who the client is, for per-address limits (and, later, address
 * restrictions). It is the socket's peer: `X-Forwarded-For` is not read, since any client can send
 * it; trusting it belongs here, behind a setting naming the proxies. IPv4-mapped IPv6 addresses
 * (`::ffff:1.2.3.4`) are written as the IPv4 address they are.
 */
export function clientAddress(ctx: Pick<ParameterizedContext, 'socket'>): string {
  const address = ctx.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
