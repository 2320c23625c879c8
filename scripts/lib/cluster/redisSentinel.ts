/**
 * Redis as docs/operations.md (Production topology) runs it: a master, a replica, and three Sentinels
 * (a quorum of two) that promote the replica when the master stops answering, and turn the old
 * master into a replica when it returns. ioredis asks the Sentinels for the master (REDIS_SENTINELS).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../temporalDevServer.js';
import { daemon, listening, until, type Daemon } from './daemon.js';

export const SENTINEL_MASTER_NAME = 'domains';

export interface RedisSentinel {
  servers: { port: number; redis: Daemon }[];
  sentinels: { port: number; sentinel: Daemon }[];
  /** `host:port,…` for REDIS_SENTINELS. */
  sentinelList: string;
  /** The port of the server the Sentinels name master now. */
  masterPort(): Promise<number>;
  /** Until the Sentinels agree on a master that has a connected replica. */
  waitHealthy(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function ask<T>(port: number, command: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  try {
    await redis.connect();
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

export async function startRedisSentinel(dir: string): Promise<RedisSentinel> {
  const [masterPort, replicaPort] = [await freePort(), await freePort()];
  const redisServer = (port: number, replicaOf?: number) =>
    daemon({
      name: `redis ${port}`,
      command: 'redis-server',
      // No persistence, as the fault run's single Redis: what it holds is caches, limits and sessions.
      args: ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, ...(replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : [])],
      logFile: path.join(dir, `redis-${port}.log`),
      ready: listening(port),
    });
  const servers = [
    { port: masterPort, redis: redisServer(masterPort) },
    { port: replicaPort, redis: redisServer(replicaPort, masterPort) },
  ];
  const sentinels: RedisSentinel['sentinels'] = [];
  for (let i = 0; i < 3; i += 1) {
    const port = await freePort();
    // Sentinel rewrites its file with what it learns (the current master, the other Sentinels).
    const configFile = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      configFile,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 2000`,
        `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 10000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push({ port, sentinel: daemon({ name: `sentinel ${port}`, command: 'redis-sentinel', args: [configFile], logFile: path.join(dir, `sentinel-${port}.log`), ready: listening(port) }) });
  }
  const stop = async () => {
    await Promise.all(sentinels.map(({ sentinel }) => sentinel.stop()));
    await Promise.all(servers.map(({ redis }) => redis.stop()));
  };
  const currentMaster = async () => Number((await ask(sentinels[0]!.port, (r) => r.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER_NAME)) as string[])[1]);
  try {
    for (const { redis } of servers) await redis.start();
    for (const { sentinel } of sentinels) await sentinel.start();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    servers,
    sentinels,
    sentinelList: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
    masterPort: currentMaster,
    waitHealthy: (timeoutMs) =>
      until(
        async () => {
          try {
            const port = await currentMaster();
            const info = await ask(port, (r) => r.info('replication'));
            const agreed = await Promise.all(sentinels.map(({ port: s }) => ask(s, (r) => r.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER_NAME)) as Promise<string[]>));
            return /role:master/.test(info) && /connected_slaves:[1-9]/.test(info) && agreed.every((addr) => Number(addr[1]) === port);
          } catch {
            return false;
          }
        },
        'Redis had no master with a replica that every Sentinel names',
        timeoutMs,
        250,
      ),
    stop,
  };
}
