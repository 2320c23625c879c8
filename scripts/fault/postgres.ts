/**
 * A PostgreSQL cluster of the fault run's own (initdb into a temporary directory, a free loopback
 * port, its socket in that directory), so that stopping it never touches the machine's shared server.
 * initdb and the server refuse to run as root: as root they run as the `postgres` user.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface OwnPostgres {
  url: string;
  port: number;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops the server (immediately) and leaves the directory to the caller. Safe to call twice. */
  destroy: () => void;
}

/** `PG_BIN`, else the newest Debian cluster binaries, else the directory of `pg_config --bindir`. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(path.join(debian, v, 'bin', 'initdb')));
    versions.sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], 'bin');
  }
  const result = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (result.status === 0) return result.stdout.trim();
  throw new Error('PostgreSQL binaries not found: install postgresql or set PG_BIN to the directory holding initdb and pg_ctl');
}

/** Runs a PostgreSQL tool as the cluster's owner: `runSync` for set-up and exit, `run` while clients wait. */
function asOwner(dir: string) {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const argv = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  return {
    runSync: (tool: string, args: string[]) => {
      const result = spawnSync(...argv(tool, args), { encoding: 'utf8', cwd: dir });
      if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    },
    // Asynchronous, so that the clients' clocks keep running while the server stops and starts.
    run: async (tool: string, args: string[]) => {
      await promisify(execFile)(...argv(tool, args), { cwd: dir });
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** initdb (trust on loopback only, no fsync: a throw-away cluster) and start it on `port`. */
export function startOwnPostgres(dir: string, port: number): OwnPostgres {
  const { run, runSync } = asOwner(dir);
  const data = path.join(dir, 'pgdata');
  runSync('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const startArgs = ['-D', data, '-l', path.join(dir, 'postgres.log'), '-w', '-t', '60', '-o', options, 'start'];
  runSync('pg_ctl', startArgs);
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/domains_fault`,
    port,
    start: () => run('pg_ctl', startArgs),
    // `fast`: every connection is cut at once, as when the server goes away.
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    destroy: () => {
      if (destroyed) return;
      destroyed = true;
      try {
        runSync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } catch {
        // Already stopped (a fault left it down, or it never started).
      }
    },
  };
}
