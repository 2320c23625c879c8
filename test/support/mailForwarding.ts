/**
 * The mail forwarder for the mail tests: Debian's Postfix and postsrsd on free loopback ports
 * (scripts/lib/mailForwardingServer.ts, as `npm run dev` starts them), our policy service and log
 * watcher, and a development mailbox (smtpSink.ts) as the only place test-mode mail goes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { freePort } from '../../scripts/lib/temporalDevServer.js';
import { startMailForwardingServer, type MailForwardingServer } from '../../scripts/lib/mailForwardingServer.js';
import { createMailMetrics, startMailPolicy, watchMailLog, type MailLogWatcher, type MailMetrics } from '../../src/features/emailForwards/index.js';
import type { AppDeps } from '../../src/deps.js';
import { startSmtpSink, type SmtpSink } from './smtpSink.js';

export const SRS_DOMAIN = 'mx.forwarding.localhost';

export interface MailForwarding {
  port: number;
  mailbox: SmtpSink;
  registry: Registry;
  metrics: MailMetrics;
  log: MailLogWatcher;
  server: MailForwardingServer;
  close(): Promise<void>;
}

/** `app` is a test app or the bench's stack: what holds the database, Redis and the configuration. */
export async function startMailForwarding(app: { deps: Pick<AppDeps, 'db' | 'redis' | 'config'> }, options: { freePerHour?: number } = {}): Promise<MailForwarding> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mailfwd-test-'));
  const mailbox = await startSmtpSink();
  const registry = new Registry();
  const metrics = createMailMetrics(registry);
  const policy = await startMailPolicy({ db: app.deps.db, redis: app.deps.redis, metrics, livemode: false, srsDomain: SRS_DOMAIN, freePerHour: options.freePerHour });
  const [port, forwardPort, reversePort] = [await freePort(), await freePort(), await freePort()];
  const sink = new URL(mailbox.url);
  const server = await startMailForwardingServer({
    dir,
    hostname: SRS_DOMAIN,
    listen: { host: '127.0.0.1', port },
    livemode: false,
    databaseUrl: app.deps.config.databaseUrl,
    db: app.deps.db,
    srs: { forwardPort, reversePort },
    policyPort: policy.port,
    relay: { host: sink.hostname, port: Number(sink.port) },
  });
  const log = watchMailLog({ logFile: server.logFile, queueDir: server.queueDir, livemode: false, metrics, intervalMs: 200 });
  return {
    port,
    mailbox,
    registry,
    metrics,
    log,
    server,
    close: async () => {
      log.stop();
      await server.stop();
      await policy.close();
      await mailbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface SwaksResult {
  code: number;
  /** The whole SMTP conversation swaks printed. */
  transcript: string;
}

/** Sends with swaks (Debian's), as a remote mail server would: its exit code says where the conversation stopped. */
export async function swaks(port: number, args: string[]): Promise<SwaksResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)('swaks', ['--server', '127.0.0.1', '--port', String(port), '--helo', 'sender.example.net', '--timeout', '15', ...args]);
    return { code: 0, transcript: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, transcript: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}
