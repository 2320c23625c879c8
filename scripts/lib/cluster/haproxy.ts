/**
 * HAProxy in front of PostgreSQL and of the Temporal frontends, configured as Patroni's documentation
 * shows: a PostgreSQL backend is up only while its Patroni REST API answers 200 to `/primary`, so the
 * port follows the primary across a failover, and the sessions to a node marked down are cut at once
 * (`on-marked-down shutdown-sessions`), so no client keeps writing to a demoted node. The Temporal
 * frontends are balanced round-robin (gRPC over TCP), each checked by a connect.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../temporalDevServer.js';
import { daemon, listening, type Daemon } from './daemon.js';

export interface HaproxyProps {
  dir: string;
  postgres: { name: string; pgPort: number; restPort: number }[];
  temporalFrontends: { name: string; port: number }[];
}

export interface Haproxy {
  daemon: Daemon;
  postgresPort: number;
  temporalPort: number;
}

export async function startHaproxy(props: HaproxyProps): Promise<Haproxy> {
  const [postgresPort, temporalPort] = [await freePort(), await freePort()];
  const config = [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  retries 2',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    'listen postgres',
    `  bind 127.0.0.1:${postgresPort}`,
    '  option httpchk OPTIONS /primary',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...props.postgres.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} maxconn 300 check port ${node.restPort}`),
    'listen temporal',
    `  bind 127.0.0.1:${temporalPort}`,
    '  balance roundrobin',
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...props.temporalFrontends.map((frontend) => `  server ${frontend.name} 127.0.0.1:${frontend.port} check`),
    '',
  ].join('\n');
  const configFile = path.join(props.dir, 'haproxy.cfg');
  writeFileSync(configFile, config);
  const proxy = daemon({ name: 'haproxy', command: 'haproxy', args: ['-db', '-f', configFile], logFile: path.join(props.dir, 'haproxy.log'), ready: listening(postgresPort) });
  await proxy.start();
  return { daemon: proxy, postgresPort, temporalPort };
}
