import { access } from 'node:fs/promises';
import path from 'node:path';
import send from 'koa-send';
import type { DashboardCtx } from './signIn.js';
import { DASHBOARD_PATH } from './site.js';

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body style="font:16px system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">
<h1>The dashboard has not been built</h1>
<p>Run <code>npm run build</code> (or <code>npm run dev</code>, which builds and serves it), then reload this page.</p>
<p>The API itself is running: see <a href="/docs">/docs</a>.</p></body></html>`;

/** A path naming a file (`app.js`, `logo.svg`), as opposed to a page of the client-side router. */
const looksLikeFile = (relative: string) => /\.[A-Za-z0-9]{1,8}$/.test(relative);

/**
 * The built front end (DASHBOARD_DIST_DIR, Vite's output): files as they are (hashed assets cached
 * for a year), and index.html for every other path, so client-side routes survive a reload.
 */
export function dashboardFiles(distDir: string): (ctx: DashboardCtx) => Promise<void> {
  const root = path.resolve(distDir);
  return async (ctx) => {
    if (ctx.path === DASHBOARD_PATH) return ctx.redirect(`${DASHBOARD_PATH}/`);
    // Still URL-encoded: koa-send decodes it, and refuses paths that leave `root`.
    const relative = ctx.path.slice(DASHBOARD_PATH.length + 1);
    if (relative && looksLikeFile(relative)) {
      const immutable = relative.startsWith('assets/');
      try {
        await send(ctx, relative, { root, immutable, maxage: immutable ? 365 * 86_400_000 : 0 });
        return;
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err;
      }
      // A missing asset is a 404; any other missing "file" is a page whose last segment has a dot,
      // such as /dashboard/domains/example.com, and gets the router's index.html below.
      if (immutable) return;
    }
    try {
      await access(path.join(root, 'index.html'));
    } catch {
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    await send(ctx, 'index.html', { root });
  };
}
