import { escapeHtml } from '../../http/html.js';

/**
 * The development OpenID provider's pages (the sign-in form, and the device sign-in pages of
 * src/auth/dev/devicePages.ts): one plain layout, readable without scripts and passing axe-core.
 */
export function devPage(props: { title: string; note: string; problem?: string | undefined; main: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(props.title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1f2933}
label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1.5rem;margin-right:.5rem;padding:.6rem 1.2rem;font:inherit}.problem{color:#b42318}.note{color:#52606d;font-size:.9rem}
.code{font:1.6rem ui-monospace,monospace;letter-spacing:.15em}</style>
</head><body><main>
<h1>${escapeHtml(props.title)}</h1>
<p class="note">The development identity provider signs in whoever you say you are. It only serves loopback addresses; production uses your own OpenID provider.</p>
<p class="note">${props.note}</p>
${props.problem ? `<p class="problem" role="alert">${escapeHtml(props.problem)}</p>` : ''}
${props.main}
</main></body></html>`;
}

/** `value="…"` for a field shown again after a problem; nothing when there is no value. */
export const valueAttribute = (text: string | undefined) => (text ? ` value="${escapeHtml(text)}"` : '');

/**
 * The Content-Security-Policy of every development page: no scripts, inline styles only, forms
 * posting to this origin and `formActions` (origins a form's redirects may lead to), never framed.
 */
export function devPageCsp(formActions: string[] = []): string {
  return `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formActions.join(' ')}; frame-ancestors 'none'`.replace(/ +;/g, ';');
}
