/**
 * Starting the mail forwarder on loopback: Debian's Postfix as an instance of its own (config,
 * queue, data and log under `dir`, never the system's /etc/postfix) and postsrsd on ports of its
 * own. `npm run dev` starts one for test-mode forwards (state in `.data/mail-forwarding/`), the
 * mail tests one each (test/support/mailForwarding.ts). The configuration is
 * src/features/emailForwards/postfixConfig.ts (docs/operations.md, E-mail forwarding).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type pg from 'pg';
import { lookupTables, mainCf, masterCf, type PostfixConfigProps } from '../../src/features/emailForwards/index.js';

export const POSTFIX = '/usr/sbin/postfix';
export const POSTSRSD = '/usr/sbin/postsrsd';
/** Debian's packages that provide them; `.ci/run` installs them (swaks is the tests' client). */
export const MAIL_FORWARDING_PACKAGES = 'postfix postfix-pgsql postsrsd swaks';
/** The role Postfix reads aliases as (migrations/1765700000000_email_forwards.sql). */
export const READER_ROLE = 'email_forward_reader';

export function mailForwardingInstalled(): boolean {
  return existsSync(POSTFIX) && existsSync(POSTSRSD) && existsSync('/usr/lib/postfix/postfix-pgsql.so');
}

export interface MailForwardingServerProps extends Omit<PostfixConfigProps, 'database' | 'srs'> {
  /** The service's database (DATABASE_URL), where Postfix reads; `db` gives the reader role its login for it. */
  databaseUrl: string;
  db: Pick<pg.Pool, 'query'>;
  srs: PostfixConfigProps['srs'];
}

export interface MailForwardingServer {
  logFile: string;
  queueDir: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a process whose output is appended to `logFile`, given it as a file: Postfix's
 * `maillog_file = /dev/stdout` must be able to open its standard output, which a socket (what
 * Node's pipes are) is not.
 */
function startProcess(command: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    // A process group of its own: Postfix's master and postsrsd fork children, and stopping ends them all.
    return spawn(command, args, { stdio: ['ignore', fd, fd], detached: true });
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM to `target` (a pid, or a process group as its negative), SIGKILL after 5 s; answers once nothing of it is left. */
async function endProcesses(target: number): Promise<void> {
  const signal = (name: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(target, name);
      return true;
    } catch {
      return false; // nothing of it is left
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + 5_000;
  while (signal(0)) {
    if (Date.now() > deadline) signal('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Ends the process and every child it forked (its group). */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.pid !== undefined) await endProcesses(-child.pid);
}

/** Postfix's master makes a session of its own: it is ended by the pid it keeps, and its daemons with it. */
async function stopPostfixMaster(queueDir: string): Promise<void> {
  const pidFile = path.join(queueDir, 'pid', 'master.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
  if (Number.isInteger(pid) && pid > 0) await endProcesses(pid);
}

/** Resolves once something answers an SMTP greeting on the port. */
async function waitForGreeting(port: number, child: ChildProcess, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postfix exited ${child.exitCode}:\n${output()}`);
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
      socket.once('data', (chunk: Buffer) => (socket.end('QUIT\r\n'), resolve(chunk.toString().startsWith('220'))));
      socket.once('error', () => resolve(false));
    });
    if (greeted) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Postfix did not greet on ${port} within ${timeoutMs} ms:\n${output()}`);
}

/**
 * A login for the reader role (the role itself comes from the migration). Its development password
 * is derived from the cluster's address, so instances started beside each other (tests in parallel,
 * `npm run dev`) all set the same one and none locks another out; a deployment sets its own
 * (docs/operations.md, E-mail forwarding).
 */
async function readerLogin(databaseUrl: string, db: Pick<pg.Pool, 'query'>): Promise<PostfixConfigProps['database']> {
  const url = new URL(databaseUrl);
  const password = createHash('sha256').update(`email_forward_reader development password|${url.hostname}:${url.port}`).digest('base64url').slice(0, 24);
  await db.query(`ALTER ROLE ${READER_ROLE} WITH LOGIN PASSWORD '${password}'`);
  return { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432), user: READER_ROLE, password, dbname: decodeURIComponent(url.pathname.slice(1)) };
}

/** Writes the instance's files and starts postsrsd and Postfix (the policy service is the caller's); answers once Postfix greets. */
export async function startMailForwardingServer(props: MailForwardingServerProps): Promise<MailForwardingServer> {
  if (!mailForwardingInstalled()) throw new Error(`Postfix, its pgsql tables or postsrsd not found: install ${MAIL_FORWARDING_PACKAGES}`);
  const etc = path.join(props.dir, 'etc');
  for (const sub of ['etc', 'queue', 'data', 'log', 'srs']) await mkdir(path.join(props.dir, sub), { recursive: true, mode: sub === 'srs' ? 0o700 : 0o755 });
  // Postfix's daemons run as its mail owner, which must reach its directories (mkdtemp makes 0700).
  await chmod(props.dir, 0o755);
  // Postfix keeps its data directory as its mail owner; the queue's subdirectories it makes itself.
  const owner = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postfix']).toString().trim());
  await chown(path.join(props.dir, 'data'), owner('-u'), owner('-g'));
  const config: PostfixConfigProps = { ...props, database: await readerLogin(props.databaseUrl, props.db) };
  await writeFile(path.join(etc, 'main.cf'), mainCf(config));
  await writeFile(path.join(etc, 'master.cf'), masterCf(config));
  for (const [file, text] of Object.entries(lookupTables(config))) await writeFile(path.join(etc, file), text, { mode: 0o640 });
  const secret = path.join(props.dir, 'srs', 'secret');
  if (!existsSync(secret)) await writeFile(secret, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });

  const logFile = path.join(props.dir, 'log', 'postfix.log');
  const srsLog = path.join(props.dir, 'log', 'postsrsd.log');
  const output = () => [srsLog, logFile].map((file) => (existsSync(file) ? readFileSync(file, 'utf8') : '')).join('');
  const srs = startProcess(POSTSRSD, [`-s${secret}`, `-d${props.hostname}`, '-l127.0.0.1', `-f${props.srs.forwardPort}`, `-r${props.srs.reversePort}`, '-4'], srsLog);
  const postfix = startProcess(POSTFIX, ['-c', etc, 'start-fg'], logFile);
  const queueDir = path.join(props.dir, 'queue');
  const stop = async () => {
    await stopPostfixMaster(queueDir);
    await stopProcess(postfix);
    await stopProcess(srs);
  };
  try {
    await waitForGreeting(props.listen.port, postfix, output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { logFile, queueDir, output, stop };
}
