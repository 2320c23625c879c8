import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { modeLabel } from '../../metrics/registry.js';
import type { MailMetrics } from './mailMetrics.js';

/** What one line of Postfix's log counts for, if anything. */
export function classifyLogLine(line: string): 'refused' | 'forwarded' | 'deferred' | undefined {
  // The policy service counts its own 451s; Postfix's 5xx refusals at RCPT are counted here.
  if (/NOQUEUE: reject: RCPT from .*: 5\d\d /.test(line)) return 'refused';
  if (/ status=sent /.test(line)) return 'forwarded';
  if (/ status=deferred /.test(line)) return 'deferred';
  return undefined;
}

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let count = 0;
  for (const entry of entries) count += entry.isDirectory() ? await countFiles(path.join(dir, entry.name)) : 1;
  return count;
}

export interface MailLogWatcher {
  /** Reads what the log holds now and the deferred queue's size: what each tick does. */
  poll(): Promise<void>;
  stop(): void;
}

/**
 * Follows Postfix's `maillog_file` (postlogd) from where it stands and counts what it says into the
 * metrics, and measures the deferred queue, every `intervalMs`.
 */
export function watchMailLog(props: { logFile: string; queueDir: string; livemode: boolean; metrics: MailMetrics; intervalMs?: number }): MailLogWatcher {
  const mode = modeLabel(props.livemode);
  let offset = 0;
  let partial = '';
  let running: Promise<void> = Promise.resolve();
  const readMore = async () => {
    const file = await open(props.logFile, 'r').catch(() => undefined);
    if (file) {
      try {
        const { size } = await file.stat();
        if (size < offset) offset = 0;
        if (size > offset) {
          const buffer = Buffer.alloc(size - offset);
          await file.read(buffer, 0, buffer.length, offset);
          offset = size;
          const lines = (partial + buffer.toString('utf8')).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            const kind = classifyLogLine(line);
            if (kind === 'refused') props.metrics.refused.inc({ mode, reason: 'recipient' });
            else if (kind) props.metrics[kind].inc({ mode });
          }
        }
      } finally {
        await file.close();
      }
    }
    props.metrics.deferredQueue.set({ mode }, await countFiles(path.join(props.queueDir, 'deferred')));
  };
  const poll = () => (running = running.then(readMore, readMore));
  const timer = setInterval(() => void poll(), props.intervalMs ?? 1_000);
  timer.unref();
  return { poll, stop: () => clearInterval(timer) };
}
