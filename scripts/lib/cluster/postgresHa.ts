/**
 * PostgreSQL as docs/operations.md (Production topology) runs it: two nodes under Patroni, which keeps
 * its leader lock in etcd, streams to the other node with synchronous replication
 * (`synchronous_mode`: a commit is acknowledged once the standby has it) and promotes that standby
 * when the primary dies. Patroni and PostgreSQL refuse root: as root they run as `postgres`.
 * All of it on loopback ports, data in the cluster's directory; nothing touches the machine's server.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../temporalDevServer.js';
import { answersOk, daemon, listening, type Daemon } from './daemon.js';

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  patroni: Daemon;
  /** SIGKILLs Patroni and then the postmaster: the node is gone, as when its machine dies. */
  kill(): Promise<void>;
}

export interface PostgresHa {
  etcd: Daemon;
  nodes: PatroniNode[];
  /** The node whose REST API answers 200 to `GET /primary`, if one does. */
  primary(): Promise<PatroniNode | undefined>;
  /** Until a primary and a synchronous standby are both in place. */
  waitHealthy(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** `PG_BIN`, else Debian's newest PostgreSQL. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  return execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1'], { encoding: 'utf8' }).trim();
}

/** Runs `command` as `postgres` when this process is root (setpriv execs, so the pid is the command's). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

async function startEtcd(dir: string): Promise<{ etcd: Daemon; clientPort: number }> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const etcd = daemon({
    name: 'etcd',
    command: 'etcd',
    args: [
      '--name', 'etcd-1', '--data-dir', path.join(dir, 'etcd'),
      '--listen-client-urls', client, '--advertise-client-urls', client,
      '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `etcd-1=${peer}`, '--initial-cluster-state', 'new',
    ],
    logFile: path.join(dir, 'etcd.log'),
    ready: () => answersOk(`${client}/health`),
  });
  await etcd.start();
  return { etcd, clientPort };
}

/**
 * Patroni's settings (its documentation's, with the timings shortened for one machine: the leader
 * lock lives 10 s, so a dead primary is replaced within about that; ttl ≥ loop_wait + 2 × retry_timeout).
 */
function patroniConfig(props: { dir: string; name: string; pgPort: number; restPort: number; etcdPort: number }) {
  const home = path.join(props.dir, props.name);
  return {
    scope: 'domain-service',
    name: props.name,
    restapi: { listen: `127.0.0.1:${props.restPort}`, connect_address: `127.0.0.1:${props.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${props.etcdPort}`] },
    bootstrap: {
      dcs: {
        ttl: 10,
        loop_wait: 2,
        retry_timeout: 4,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: { wal_log_hints: 'on', max_connections: 300, max_wal_senders: 10, max_replication_slots: 10, wal_level: 'replica', hot_standby: 'on' },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, 'data-checksums'],
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
    },
    postgresql: {
      listen: `127.0.0.1:${props.pgPort}`,
      connect_address: `127.0.0.1:${props.pgPort}`,
      data_dir: path.join(home, 'data'),
      bin_dir: binDir(),
      pgpass: path.join(home, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
        rewind: { username: 'postgres', password: 'postgres' },
      },
      parameters: { unix_socket_directories: home },
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
    },
  };
}

async function startNode(dir: string, name: string, etcdPort: number): Promise<PatroniNode> {
  const home = path.join(dir, name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const [pgPort, restPort] = [await freePort(), await freePort()];
  const configFile = path.join(home, 'patroni.yml');
  // JSON is YAML.
  writeFileSync(configFile, JSON.stringify(patroniConfig({ dir, name, pgPort, restPort, etcdPort }), null, 2));
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    chownSync(home, uid, gid);
    chownSync(configFile, uid, gid);
  }
  const [command, args] = asPostgres('patroni', [configFile]);
  const patroni = daemon({ name: `patroni ${name}`, command, args, logFile: path.join(home, 'patroni.log'), ready: listening(restPort) });
  await patroni.start();
  const postmasterPid = () => {
    try {
      return Number(readFileSync(path.join(home, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  return {
    name,
    pgPort,
    restPort,
    patroni,
    kill: async () => {
      const postmaster = postmasterPid();
      await patroni.kill();
      try {
        if (postmaster) process.kill(postmaster, 'SIGKILL');
      } catch {
        // Not running.
      }
    },
  };
}

export async function startPostgresHa(dir: string): Promise<PostgresHa> {
  const { etcd, clientPort } = await startEtcd(dir);
  const nodes: PatroniNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.patroni.stop(30_000)));
    await etcd.stop();
  };
  try {
    // The first bootstraps the cluster and takes the lock; the second then joins as its standby.
    nodes.push(await startNode(dir, 'pg-1', clientPort));
    await untilPrimary(nodes, 60_000);
    nodes.push(await startNode(dir, 'pg-2', clientPort));
  } catch (err) {
    await stop();
    throw err;
  }
  const primary = async () => {
    for (const node of nodes) if (await answersOk(`http://127.0.0.1:${node.restPort}/primary`)) return node;
    return undefined;
  };
  return {
    etcd,
    nodes,
    primary,
    waitHealthy: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (!((await primary()) && (await syncStandby(nodes)))) {
        if (Date.now() > deadline) throw new Error(`PostgreSQL had no primary with a synchronous standby within ${timeoutMs} ms (see ${dir}/pg-*/patroni.log)`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    stop,
  };
}

async function untilPrimary(nodes: PatroniNode[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const node of nodes) if (await answersOk(`http://127.0.0.1:${node.restPort}/primary`)) return;
    if (Date.now() > deadline) throw new Error(`no PostgreSQL primary within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A node answers 200 to `GET /synchronous` (Patroni: it is the synchronous standby). */
async function syncStandby(nodes: PatroniNode[]): Promise<boolean> {
  for (const node of nodes) if (await answersOk(`http://127.0.0.1:${node.restPort}/synchronous`)) return true;
  return false;
}
