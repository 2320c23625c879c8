/**
 * The scale bench's webhook receiver and its floor: a loopback server that answers every POST 200 and
 * keeps, per `webhook-id`, when it first came and how many times; and the same POSTs sent by a bare
 * loop (signed as the worker signs them, through the same sender), for what the machine can deliver
 * with no queue, no Temporal and no database.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressPolicy } from '../../src/features/webhooks/addressPolicy.js';
import { sendWebhook, systemResolver } from '../../src/features/webhooks/sender.js';
import { newSigningSecret, signedDelivery } from '../../src/features/webhooks/signing.js';
import type { EventRow } from '../../src/features/webhooks/events.repository.js';
import { modeOf } from '../../src/db/modeScope.js';
import type { Config } from '../../src/config.js';

export interface BurstReceiver {
  url: string;
  /** performance.now() of each id's first arrival. */
  firstAt: Map<string, number>;
  /** Every POST that carried an id, duplicates included. */
  posts(): number;
  /** POSTs to `/floor`: the bare loop's. */
  floorPosts(): number;
  close(): Promise<void>;
}

export async function startBurstReceiver(): Promise<BurstReceiver> {
  const firstAt = new Map<string, number>();
  let posts = 0;
  let floorPosts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200).end('ok', () => {
        if (req.url?.startsWith('/floor')) {
          floorPosts += 1;
          return;
        }
        const id = String(req.headers['webhook-id']);
        posts += 1;
        if (!firstAt.has(id)) firstAt.set(id, performance.now());
      }),
    );
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 4_096, resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    firstAt,
    posts: () => posts,
    floorPosts: () => floorPosts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `count` signed POSTs of an event like the burst's to the receiver, `concurrency` at a time (the
 * worker runs 100 activities at once: WORKER_MAX_CONCURRENT_ACTIVITIES), each through sendWebhook as a
 * delivery goes: its deliveries a second.
 */
export async function bareLoopFloor(props: { receiver: BurstReceiver; count: number; concurrency: number; config: Pick<Config, 'webhooks'> }): Promise<number> {
  const secret = newSigningSecret();
  const policy = addressPolicy(props.config.webhooks, modeOf(false));
  const url = props.receiver.url.replace(/\/hooks$/, '/floor');
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (next < props.count) {
      const i = next++;
      const event: EventRow = {
        id: `evt_floor${i}`,
        orgId: 'org_floor',
        livemode: false,
        type: 'operation.succeeded',
        data: { object: { id: `op_burst_${i}` } },
        domain: null,
        createdAt: new Date(),
        dispatchedAt: null,
      };
      const { body, headers } = signedDelivery(event, [secret]);
      const sent = await sendWebhook({ url, body, headers, timeoutMs: 10_000, policy, resolver: systemResolver });
      if (sent.error) throw new Error(`the floor's POST failed: ${sent.error}`);
    }
  };
  await Promise.all(Array.from({ length: props.concurrency }, loop));
  return (props.count / (performance.now() - started)) * 1_000;
}
