/**
 * The command line at a terminal (tmux), as a person sees it: `--wait` draws a progress line while
 * the registration runs and leaves only the result; `records apply` shows the difference and asks
 * before changing anything; `webhooks listen` prints a line per event forwarded while another domain
 * is registered in the pane below. With DASHBOARD_SCREENSHOTS=1 (`npm run screenshots`) each screen
 * is also saved to docs/screenshots/.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startClientProxy, type ClientProxy } from '../support/clientProxy.js';
import { openTerminal, type Terminal } from '../support/terminal.js';
import { simulatedClientAddress } from '../support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { creditBalance, insertContact, insertKey, insertOrg, insertUser } from '../support/factories.js';
import { uniqueEmail } from '../support/actors.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { randomBase62 } from '../../src/ids.js';

let app: TestApp;
let proxy: ClientProxy;
let terminal: Terminal;
let receiver: WebhookReceiver;
// `-flaky`: the synthetic registrar answers 503 twice first, so the registration runs long enough to be watched.
const domain = `tmux-${randomBase62(6).toLowerCase()}-flaky.com`;
const recordsFile = path.join(os.tmpdir(), `records-${randomBase62(6)}.yaml`);

beforeAll(async () => {
  app = await startTestApp({ worker: true });
  proxy = await startClientProxy(app.url, simulatedClientAddress());
  receiver = await startWebhookReceiver();
  const user = await insertUser(app.deps, uniqueEmail('tmux'));
  const org = await insertOrg(app.deps, { owner: user, name: 'Analytical Engines' });
  const { key } = await insertKey(app.deps, { user, scopes: [...SCOPES], mode: 'test', name: 'terminal' });
  await creditBalance(app.deps, { orgId: org.id, livemode: false, amount: 10_000 });
  await insertContact(app.deps, { orgId: org.id, livemode: false });
  await writeFile(recordsFile, 'records:\n  - { name: www, type: A, content: 192.0.2.10, ttl: 300 }\n  - { name: "@", type: MX, priority: 10, content: mail.example.net }\n');
  terminal = await openTerminal({ DOMAIN_SERVICE_API_KEY: key, DOMAIN_SERVICE_API_URL: proxy.url });
});
afterAll(async () => {
  await terminal?.close();
  await receiver?.close();
  await proxy?.close();
  await app?.close();
});

describe.sequential('the command line in a terminal', { timeout: 60_000 }, () => {
  it('shows a progress line while --wait waits, then only the result', async () => {
    await terminal.type(`domain-service domains register ${domain} --wait`);
    await terminal.waitForScreen(new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Registering ${domain}: (pending|running) \\d+s`));
    await terminal.screenshot('cli-register-wait.png');
    const done = await terminal.waitForScreen(new RegExp(`op_\\w+  domain\\.register  ${domain}  succeeded\\n\\$$`, 'm'));
    // The progress line was cleared: the screen holds the command, the result and the next prompt.
    expect(done).not.toContain('Registering');
  });

  it('shows the difference of a records file and applies it only once the person says yes', async () => {
    await terminal.type(`domain-service records add ${domain} A www 192.0.2.10 && domain-service records add ${domain} TXT old legacy`);
    await terminal.waitForScreen(/Added rec_\w+: old 3600 TXT legacy/);
    await terminal.type('clear');
    await terminal.type(`domain-service records apply ${domain} ${recordsFile}`);
    const asked = await terminal.waitForScreen(/Apply these changes to .+ \[y\/N\]$/m);
    expect(asked).toContain('+ @ 3600 MX 10 mail.example.net');
    expect(asked).toContain('~ www 300 A 192.0.2.10  (was ttl 3600)');
    expect(asked).toContain('- old 3600 TXT legacy');
    await terminal.screenshot('cli-records-apply.png');
    await terminal.press(['y', 'Enter']);
    await terminal.waitForScreen(new RegExp(`${domain.replace(/\./g, '\\.')}: applied, 1 created, 1 changed, 1 deleted\\.`));
  });

  it('forwards events to a local receiver, a line per delivery, while another domain is registered', async () => {
    await terminal.type('clear');
    await terminal.type(`domain-service webhooks listen --forward-to ${receiver.url}`);
    await terminal.waitForScreen(/Ready\. Forwarding test-mode events/);
    const below = await terminal.split();
    const another = `tmux-${randomBase62(6).toLowerCase()}.com`;
    await terminal.type(`domain-service domains register ${another} --wait`, below);
    await terminal.waitForScreen(new RegExp(`${another}  succeeded`), below);
    const forwarded = await terminal.waitForScreen(/operation\.succeeded\s+evt_\w+\s+→ 200 OK/);
    expect(forwarded).toContain('Webhook signing secret: whsec_');
    await receiver.waitFor((hook) => hook.body.includes(another));
    await terminal.screenshot('cli-webhooks-listen.png');
    await terminal.press(['C-c']);
    await terminal.waitForScreen(/Stopped\.\n\$$/m);
  });
});
