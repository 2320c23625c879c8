import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import getRawBody from 'raw-body';
import { z } from 'zod';
import { escapeHtml } from '../../http/html.js';
import { devPage, devPageCsp, valueAttribute } from './devPages.js';
import type { AppState } from '../../http/context.js';
import { DEV_OIDC_PATH, devAccountId } from './oidcProvider.js';
import type { DevAccounts } from './oidcRedisAdapter.js';

const INTERACTION = new RegExp(`^${DEV_OIDC_PATH}/interaction/([A-Za-z0-9_-]{1,64})$`);

const signInForm = z.object({
  email: z.email().max(254),
  name: z.string().trim().min(1).max(200),
});

function page(props: { action: string; clientId: string; email?: string; name?: string; problem?: string }): string {
  return devPage({
    title: 'Development sign-in',
    note: `Signing in to <code>${escapeHtml(props.clientId)}</code>.`,
    problem: props.problem,
    main: `<form method="post" action="${escapeHtml(props.action)}" aria-label="Sign in">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required autofocus${valueAttribute(props.email)}>
<label for="name">Name</label><input id="name" name="name" type="text" autocomplete="name" required${valueAttribute(props.name)}>
<button type="submit">Sign in</button>
</form>`,
  });
}

/**
 * `formActions`: the dashboard origins the sign-in redirects back to. Chromium applies `form-action`
 * to the redirects that follow a form's POST, so a dashboard on another origin (the Vite dev server
 * of scripts/lib/dashboardDevServer.ts) must be named or its callback is blocked.
 */
function sendHtml(res: ServerResponse, status: number, html: string, formActions: string[]): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': devPageCsp(formActions),
  });
  res.end(html);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(await getRawBody(req, { limit: '16kb', encoding: 'utf8' }));
}

/**
 * A signed-in account and a fresh grant for everything the client asked. A new grant per sign-in
 * gives every dashboard session its own `sid` (src/auth/dev/oidcProvider.ts); the dashboard is our
 * own client, so there is no consent page.
 */
async function signIn(provider: Provider, req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(typeof details.params.scope === 'string' ? details.params.scope : 'openid');
  const resource = details.params.resource;
  if (typeof resource === 'string') grant.addResourceScope(resource, '');
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/**
 * Serves the development OpenID provider under DEV_OIDC_PATH: its sign-in form (an e-mail and a
 * name, no password) and, for every other path, the provider itself.
 */
export function devOidcMount(loadProvider: () => Promise<Provider>, accounts: DevAccounts, formActions: string[] = []): Middleware<AppState> {
  let loaded: Promise<{ provider: Provider; handle: ReturnType<Provider['callback']> }> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== DEV_OIDC_PATH && !ctx.path.startsWith(`${DEV_OIDC_PATH}/`)) {
      await next();
      return;
    }
    loaded ??= loadProvider().then((provider) => ({ provider, handle: provider.callback() }));
    const { provider, handle } = await loaded;
    ctx.respond = false;
    const { req, res } = ctx;
    const interaction = INTERACTION.exec(ctx.path);
    try {
      if (!interaction) {
        // The provider routes on paths below its mount point and reads the mount from originalUrl.
        const url = req.url!;
        Object.assign(req, { originalUrl: url, url: url.slice(DEV_OIDC_PATH.length) || '/' });
        try {
          await handle(req, res);
        } finally {
          req.url = url; // for the request log line
        }
        return;
      }
      const details = await provider.interactionDetails(req, res);
      const clientId = String(details.params.client_id);
      const action = `${DEV_OIDC_PATH}/interaction/${details.uid}`;
      if (details.prompt.name !== 'login') {
        await signIn(provider, req, res, details.session!.accountId);
        return;
      }
      if (ctx.method === 'GET') {
        sendHtml(res, 200, page({ action, clientId }), formActions);
        return;
      }
      if (ctx.method !== 'POST') {
        res.writeHead(405, { allow: 'GET, POST' }).end();
        return;
      }
      const form = await readForm(req);
      const parsed = signInForm.safeParse({ email: form.get('email') ?? '', name: form.get('name') ?? '' });
      if (!parsed.success) {
        const problem = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
        sendHtml(res, 422, page({ action, clientId, email: form.get('email') ?? '', name: form.get('name') ?? '', problem }), formActions);
        return;
      }
      const accountId = devAccountId(parsed.data.email);
      await accounts.save(accountId, { email: parsed.data.email.toLowerCase(), name: parsed.data.name });
      await signIn(provider, req, res, accountId);
    } catch (err) {
      ctx.state.log.warn({ err }, 'development sign-in failed');
      if (!res.headersSent) {
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('This sign-in has expired or is not valid; start again from the dashboard.');
      }
    }
  };
}
