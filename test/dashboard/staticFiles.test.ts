import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';

let built: TestApp;
let unbuilt: TestApp;
let distDir: string;
beforeAll(async () => {
  distDir = await mkdtemp(path.join(os.tmpdir(), 'dashboard-dist-'));
  await mkdir(path.join(distDir, 'assets'));
  await writeFile(path.join(distDir, 'index.html'), '<!doctype html><title>Dashboard</title><div id="app"></div>');
  await writeFile(path.join(distDir, 'assets', 'index-abc123.js'), 'console.log("dashboard")');
  await writeFile(path.join(distDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  [built, unbuilt] = await Promise.all([
    startTestApp({ env: { DASHBOARD_DIST_DIR: distDir } }),
    startTestApp({ env: { DASHBOARD_DIST_DIR: path.join(distDir, 'missing') } }),
  ]);
});
afterAll(async () => {
  await Promise.all([built?.close(), unbuilt?.close()]);
  await rm(distDir, { recursive: true, force: true });
});

describe('the dashboard front end', () => {
  it('serves index.html for the dashboard and for its client-side routes', async () => {
    for (const route of ['/dashboard/', '/dashboard/domains', '/dashboard/orgs/org_1/keys']) {
      const res = await built.fetch(route);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="app">');
    }
    const bare = await built.fetch('/dashboard', { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/dashboard/');
  });

  it('serves built files, hashed assets as immutable, and 404 for a file that is not there', async () => {
    const asset = await built.fetch('/dashboard/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect(asset.headers.get('cache-control')).toBe('max-age=31536000,immutable');
    expect((await built.fetch('/dashboard/favicon.svg')).status).toBe(200);
    const missing = await built.fetch('/dashboard/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await built.fetch('/dashboard/..%2f..%2fpackage.json')).status).not.toBe(200);
    expect((await built.fetch('/dashboard/', { method: 'POST' })).status).toBe(405);
  });

  it('refuses to be framed by any site, pages and sign-in alike', async () => {
    for (const route of ['/dashboard/', '/dashboard/keys', '/dashboard/login', '/dashboard/session']) {
      const res = await built.fetch(route, { redirect: 'manual' });
      expect(res.headers.get('content-security-policy'), route).toBe("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), route).toBe('DENY');
    }
  });

  it('says to run the build when there is nothing built', async () => {
    const res = await unbuilt.fetch('/dashboard/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});
