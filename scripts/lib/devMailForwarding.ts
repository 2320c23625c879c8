/**
 * `npm run dev`'s mail forwarder for test-mode e-mail forwards: Postfix on 127.0.0.1 at
 * MAIL_FORWARDING_SMTP_PORT (state in `DATA_DIR/mail-forwarding/`), postsrsd, the policy service
 * and the log watcher (their metrics on the process's /metrics). Forwarded mail goes only to
 * SMTP_URL's host and port, or else to a development mailbox here that writes each message to
 * `DATA_DIR/mail/` as an `.eml` file, as the service's own mail is (src/mail/mailer.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { AppDeps } from '../../src/deps.js';
import { createMailMetrics, startMailPolicy, watchMailLog } from '../../src/features/emailForwards/index.js';
import { freePort } from './temporalDevServer.js';
import { MAIL_FORWARDING_PACKAGES, mailForwardingInstalled, startMailForwardingServer } from './mailForwardingServer.js';

/** Receives what the forwarder delivers and writes it to `dir`; answers its port. */
async function startDevMailbox(dir: string): Promise<{ port: number; close: () => Promise<void> }> {
  await mkdir(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        count += 1;
        const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-forwarded-${count}.eml`);
        writeFile(file, Buffer.concat(chunks)).then(() => callback(null), callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function startDevMailForwarding(deps: Pick<AppDeps, 'config' | 'db' | 'redis' | 'metrics'>): Promise<{ line: string; stop?: () => Promise<void> }> {
  const { config } = deps;
  if (!mailForwardingInstalled()) return { line: `not started: install ${MAIL_FORWARDING_PACKAGES}` };
  const smtp = config.mail.smtpUrl ? new URL(config.mail.smtpUrl) : undefined;
  const mailbox = smtp ? undefined : await startDevMailbox(path.resolve(config.dataDir, 'mail'));
  const relay = smtp ? { host: smtp.hostname, port: Number(smtp.port || 25) } : { host: '127.0.0.1', port: mailbox!.port };
  const hostname = config.mailForwarding.hostname;
  const metrics = createMailMetrics(deps.metrics.registry);
  const policy = await startMailPolicy({ db: deps.db, redis: deps.redis, metrics, livemode: false, srsDomain: hostname, freePerHour: config.mailForwarding.messagesPerHour });
  const server = await startMailForwardingServer({
    dir: path.resolve(config.dataDir, 'mail-forwarding'),
    hostname,
    listen: { host: '127.0.0.1', port: config.mailForwarding.smtpPort },
    livemode: false,
    databaseUrl: config.databaseUrl,
    db: deps.db,
    srs: { forwardPort: await freePort(), reversePort: await freePort() },
    policyPort: policy.port,
    relay,
  }).catch(async (err: unknown) => {
    await policy.close();
    await mailbox?.close();
    throw err;
  });
  const log = watchMailLog({ logFile: server.logFile, queueDir: server.queueDir, livemode: false, metrics });
  const where = smtp ? `${relay.host}:${relay.port} (SMTP_URL)` : `${path.resolve(config.dataDir, 'mail')}/`;
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    log.stop();
    await server.stop();
    await policy.close();
    await mailbox?.close();
  };
  return {
    line: `127.0.0.1:${config.mailForwarding.smtpPort} (Postfix; test-mode forwards delivered only to ${where}; swaks --server 127.0.0.1 --port ${config.mailForwarding.smtpPort} --to hello@<test domain>)`,
    // Stopped on a signal and again once the service has stopped: once is enough.
    stop: () => (stopped ??= stop()),
  };
}
