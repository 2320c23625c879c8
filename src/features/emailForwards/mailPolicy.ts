import net from 'node:net';
import type { Redis } from 'ioredis';
import type { Queryable } from '../../db/pool.js';
import type { Plan } from '../../auth/organizations.js';
import { modeLabel } from '../../metrics/registry.js';
import { forwardedPerHourLimit } from './mailLimits.js';
import type { MailMetrics } from './mailMetrics.js';
import { planOfForwardingDomain } from './emailForwards.repository.js';

/**
 * Postfix's policy delegation protocol (SMTPD_POLICY_README): Postfix asks at each RCPT that passed
 * its own checks, we answer `DUNNO` (go on) or `451` once the recipient's domain has been sent its
 * plan's messages this hour. Counted in Redis, one key per domain and hour, so every forwarder of a
 * deployment shares the count.
 */
export interface MailPolicyProps {
  db: Queryable;
  redis: Redis;
  metrics: MailMetrics;
  livemode: boolean;
  /** The SRS domain: bounces coming back are not a customer domain's mail. */
  srsDomain: string;
  /** Messages an hour on the free plan (FORWARDED_PER_HOUR_FREE unless configured). */
  freePerHour?: number;
  now?: () => number;
}

export interface MailPolicyServer {
  port: number;
  close(): Promise<void>;
}

type Answer = 'DUNNO' | `451 ${string}`;

async function decide(props: MailPolicyProps, attributes: Map<string, string>): Promise<Answer> {
  const recipient = (attributes.get('recipient') ?? '').toLowerCase();
  const domain = recipient.slice(recipient.lastIndexOf('@') + 1);
  const mode = modeLabel(props.livemode);
  if (attributes.get('protocol_state') !== 'RCPT' || !domain || domain === props.srsDomain) {
    props.metrics.accepted.inc({ mode });
    return 'DUNNO';
  }
  const plan: Plan = (await planOfForwardingDomain(props.db, props.livemode, domain)) ?? 'free';
  const limit = forwardedPerHourLimit(plan, props.freePerHour);
  const hour = Math.floor((props.now?.() ?? Date.now()) / 3_600_000);
  const key = `mailfwd:${mode}:${domain}:${hour}`;
  const [[, count]] = (await props.redis.multi().incr(key).expire(key, 3_700).exec()) as [[null, number], unknown];
  if (count > limit) {
    props.metrics.refused.inc({ mode, reason: 'rate_limit' });
    return `451 4.7.1 ${domain} has been sent its ${limit} messages this hour; try again later`;
  }
  props.metrics.accepted.inc({ mode });
  return 'DUNNO';
}

/** Listens on 127.0.0.1 (`port` 0 picks one); each connection may ask many times. */
export async function startMailPolicy(props: MailPolicyProps, port = 0): Promise<MailPolicyServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    let attributes = new Map<string, string>();
    // One request at a time per connection, as Postfix sends them.
    let chain = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        if (line !== '') {
          const eq = line.indexOf('=');
          if (eq > 0) attributes.set(line.slice(0, eq), line.slice(eq + 1));
          continue;
        }
        const request = attributes;
        attributes = new Map();
        chain = chain.then(async () => {
          // A fault of ours (Redis or PostgreSQL down) defers the recipient rather than letting mail past the limit.
          const action = await decide(props, request).catch((): Answer => '451 4.3.0 temporary failure, try again later');
          if (!socket.destroyed) socket.write(`action=${action}\n\n`);
        });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
