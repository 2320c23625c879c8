import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml } from '../../http/html.js';
import { devPage, devPageCsp, valueAttribute } from './devPages.js';

/**
 * The pages of the device authorization grant (RFC 8628) on the development provider: where a person
 * types the code their device shows, confirms it, and is told the device is signed in. oidc-provider
 * runs the flow (src/auth/dev/oidcProvider.ts, `features.deviceFlow`); these replace its own pages,
 * which load web fonts, run inline scripts and lack labels. The sign-in form itself comes between the
 * confirmation and the success page (src/auth/dev/oidcInteractions.ts).
 */

const NOTE = 'A command line (or another device without a browser) asked to sign in as you.';

/** What the provider's re-render errors (their class names) mean to the person at the form. */
const PROBLEMS: Record<string, string> = {
  NoCodeError: 'Type the code your device shows.',
  NotFoundError: 'No device is waiting with that code. Check it against your device and try again.',
  ExpiredError: 'That code has expired. Start the sign-in again on your device.',
  AlreadyUsedError: 'That code has been used already. Start the sign-in again on your device.',
  AbortedError: 'Sign-in cancelled: your device was not signed in.',
};

function send(ctx: KoaContextWithOIDC, html: string): void {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('cache-control', 'no-store');
  ctx.set('content-security-policy', devPageCsp());
  ctx.body = html;
}

/** The form's anti-forgery value: the provider keeps it in its session and checks it on every post. */
function xsrf(ctx: KoaContextWithOIDC): string {
  const secret = ctx.oidc.session?.state?.secret;
  return typeof secret === 'string' ? secret : '';
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

export function userCodeInputSource(ctx: KoaContextWithOIDC, _form: string, _out?: unknown, err?: Error): void {
  const problem = err ? (PROBLEMS[err.name] ?? 'Something went wrong. Start the sign-in again on your device.') : undefined;
  const typed = err && 'userCode' in err && typeof err.userCode === 'string' ? err.userCode : undefined;
  send(
    ctx,
    devPage({
      title: 'Sign in a device',
      note: NOTE,
      problem,
      main: `<form method="post" action="${escapeHtml(ctx.oidc.urlFor('code_verification'))}" aria-label="Device code">
${hidden('xsrf', xsrf(ctx))}
<label for="user_code">Code shown on your device</label>
<input id="user_code" name="user_code" type="text" class="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus placeholder="ABCD-EFGH"${valueAttribute(typed)}>
<button type="submit">Continue</button>
</form>`,
    }),
  );
}

export function userCodeConfirmSource(ctx: KoaContextWithOIDC, _form: string, client: { clientId: string; clientName?: string | undefined }, _deviceInfo: unknown, userCode: string): void {
  const who = escapeHtml(client.clientName ?? client.clientId);
  send(
    ctx,
    devPage({
      title: 'Confirm the device',
      note: NOTE,
      main: `<p><strong>${who}</strong> asks to act as you. Continue only if your device shows this code:</p>
<p class="code" aria-label="Device code">${escapeHtml(userCode)}</p>
<form method="post" action="${escapeHtml(ctx.oidc.urlFor('code_verification'))}" aria-label="Confirm the device">
${hidden('xsrf', xsrf(ctx))}${hidden('user_code', userCode)}${hidden('confirm', 'yes')}
<button type="submit">Continue</button><button type="submit" name="abort" value="yes">Cancel</button>
</form>`,
    }),
  );
}

export function successSource(ctx: KoaContextWithOIDC): void {
  const client = ctx.oidc.client;
  const who = escapeHtml(client?.clientName ?? client?.clientId ?? 'Your device');
  send(
    ctx,
    devPage({
      title: 'Device signed in',
      note: NOTE,
      main: `<p role="status"><strong>${who}</strong> is signed in. You can close this page and go back to it.</p>`,
    }),
  );
}
