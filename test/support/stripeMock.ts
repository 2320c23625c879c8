import { spawn, type ChildProcess } from 'node:child_process';
import { resolveStripeMock } from '../../scripts/lib/stripeMock.js';
import { portOpen, startOnFreePort } from '../../scripts/lib/temporalDevServer.js';

export interface StripeMock {
  /** `http://127.0.0.1:<port>`, for STRIPE_API_BASE. */
  url: string;
  close(): Promise<void>;
}

/** Stripe's own API mock on a free loopback port (built with go install the first time). */
export async function startStripeMock(): Promise<StripeMock> {
  const binary = await resolveStripeMock((line) => console.log(`[stripe-mock] ${line}`));
  return startOnFreePort(async (port) => {
    const child: ChildProcess = spawn(binary, ['-http-port', String(port)], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const close = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    };
    for (let i = 0; i < 100; i += 1) {
      if (child.exitCode !== null) throw new Error(`stripe-mock exited with ${child.exitCode}`);
      if (await portOpen(port)) return { url: `http://127.0.0.1:${port}`, close };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await close();
    throw new Error('stripe-mock did not listen within 10 s');
  });
}
