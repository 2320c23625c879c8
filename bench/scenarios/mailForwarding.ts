/**
 * E-mail forwarding through the real forwarder (Debian's Postfix and postsrsd, our policy service;
 * test/support/mailForwarding.ts): how long a forwarded message takes from swaks finishing to the
 * development mailbox (target 5 s), and the rate of messages sent one after another on one SMTP
 * connection, counted when the last has reached the mailbox (target 20 a second). docs/bench.md.
 */
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import type { Stack } from '../lib/stack.js';
import { summarise, type BenchRow } from '../lib/report.js';
import { benchCustomer } from '../lib/customer.js';
import { startMailForwarding, swaks } from '../../test/support/mailForwarding.js';

const SECTION = 'E-mail forwarding: swaks or one SMTP client → Postfix on loopback (SRS, policy service) → the development mailbox';

export async function benchMailForwarding(stack: Stack, props: { latencyRuns: number; messages: number }): Promise<BenchRow[]> {
  const customer = await benchCustomer(stack.deps, 'mail');
  const created = await fetch(`${stack.api.url}/api/v1/orgs/${customer.orgId}/domains/${customer.testDomain}/email-forwards`, {
    method: 'POST',
    headers: { authorization: `Bearer ${customer.testKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ local_part: '*', to: ['inbox@example.org'] }),
  });
  if (created.status !== 201) throw new Error(`creating the forward answered ${created.status}: ${await created.text()}`);
  const mail = await startMailForwarding(stack);
  try {
    const latencies: number[] = [];
    for (let i = 0; i < props.latencyRuns; i += 1) {
      const marker = `latency-${i}-${Date.now()}`;
      const sent = await swaks(mail.port, ['--from', 'alice@sender.example.net', '--to', `hello@${customer.testDomain}`, '--body', marker]);
      if (sent.code !== 0) throw new Error(sent.transcript);
      const after = performance.now();
      await mail.mailbox.waitFor((m) => m.raw.includes(marker), 30_000);
      latencies.push(performance.now() - after);
    }
    const { p50: latency, max } = summarise(latencies);

    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mail.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, name: 'sender.example.net' });
    const marker = `burst-${Date.now()}`;
    const before = mail.mailbox.messages.length;
    const start = performance.now();
    for (let i = 0; i < props.messages; i += 1) {
      await transport.sendMail({ envelope: { from: 'bulk@sender.example.net', to: [`r${i}@${customer.testDomain}`] }, raw: `From: bulk@sender.example.net\r\nTo: r${i}@${customer.testDomain}\r\nSubject: ${marker} ${i}\r\n\r\n${marker}\r\n` });
    }
    const deadline = Date.now() + 120_000;
    while (mail.mailbox.messages.slice(before).filter((m) => m.raw.includes(marker)).length < props.messages) {
      if (Date.now() > deadline) throw new Error('the burst did not reach the mailbox within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - start) / 1_000;
    transport.close();
    const rate = props.messages / seconds;
    return [
      { section: SECTION, name: 'forwarded message at the mailbox after swaks, p50', value: latency, unit: 'ms', detail: `${props.latencyRuns} runs; max ${max.toFixed(0)} ms`, target: { text: '≤ 5,000 ms', met: latency <= 5_000 } },
      { section: SECTION, name: `${props.messages} messages in a row, all at the mailbox`, value: rate, unit: 'msg/s', detail: `${seconds.toFixed(2)} s`, target: { text: '≥ 20 msg/s', met: rate >= 20 } },
    ];
  } finally {
    await mail.close();
  }
}
