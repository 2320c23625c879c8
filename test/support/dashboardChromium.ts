/**
 * The dashboard in Debian's Chromium, driven by Playwright, against a test app serving the built front
 * end: what every browser test of the dashboard starts from (test/dashboard/journey, money, webhooks).
 * With DASHBOARD_SCREENSHOTS=1 (`npm run screenshots`) `screenshot` writes to docs/screenshots/.
 */
import path from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp, type TestAppOptions } from './testApp.js';
import { launchChromium } from './chromium.js';
import { builtDashboard } from './dashboardBuild.js';
import { REPO_ROOT } from './processes.js';

const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'screenshots') : undefined;

export interface ChromiumDashboard {
  app: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** An absolute URL under /dashboard. */
  url(pathname: string): string;
  /** A full-page screenshot into docs/screenshots/, only under DASHBOARD_SCREENSHOTS=1. */
  screenshot(name: string): Promise<void>;
  /** Client-side navigation through the top bar, as a person clicks it, until the page's heading says so. */
  openNav(label: string): Promise<void>;
  /**
   * Signs in through the development OpenID provider's form, back on the dashboard's home page;
   * `onPage` is called on each page on the way (the signed-out page, the provider's form).
   */
  signIn(person: { email: string; name: string }, onPage?: (label: string) => Promise<void>): Promise<void>;
  /** Creates an organisation on the Organisations page and waits until it is the current one. */
  createOrg(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Waits for a value the page shows once it has caught up (vitest's own default is 1 s). */
export const pollPage = <T>(read: () => Promise<T>, options: { timeout?: number } = {}) => expect.poll(read, { timeout: 15_000, interval: 100, ...options });

/** `options` go to the test app; the built dashboard is always served. */
export async function openChromiumDashboard(options: TestAppOptions = {}): Promise<ChromiumDashboard> {
  const dist = await builtDashboard();
  const app = await startTestApp({ ...options, env: { ...options.env, DASHBOARD_DIST_DIR: dist } });
  const browser = await launchChromium();
  // The page is a client of its own behind the test app's loopback proxy (test/support/http.ts).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { 'x-forwarded-for': app.clientAddress } });
  const page = await context.newPage();
  // Generous for a busy CI machine; a step that truly fails still fails, only later.
  page.setDefaultTimeout(10_000);
  const url = (pathname: string) => `${app.url}/dashboard${pathname}`;
  const openNav = async (label: string) => {
    await page.locator('.topbar .nav-links').getByRole('link', { name: label, exact: true }).click();
    await pollPage(() => page.getByRole('heading', { level: 1 }).first().textContent()).toBe(label);
  };
  return {
    app,
    browser,
    context,
    page,
    url,
    openNav,
    screenshot: async (name) => {
      if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });
    },
    signIn: async (person, onPage) => {
      await page.goto(url('/'));
      await page.getByRole('button', { name: 'Sign in' }).click({ trial: true });
      await onPage?.('the signed-out page');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/dev\/oidc\//);
      await page.getByLabel('E-mail').waitFor();
      await onPage?.('the sign-in form');
      await page.getByLabel('E-mail').fill(person.email);
      await page.getByLabel('Name').fill(person.name);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(url('/'));
    },
    createOrg: async (name) => {
      await openNav('Organisations');
      await page.getByRole('textbox', { name: 'New organisation' }).fill(name);
      await page.getByRole('button', { name: 'Create' }).click();
      await pollPage(() => page.getByRole('combobox', { name: 'Organisation' }).inputValue()).toMatch(/^org_/);
    },
    close: async () => {
      await browser.close();
      await app.close();
    },
  };
}

/** An afterEach hook: what the page showed when a step failed, the fastest way to see why in CI's log. */
export function showPageOnFailure(page: () => Page | undefined) {
  return async ({ task }: { task: { result?: { state?: string } } }) => {
    const shown = page();
    if (task.result?.state === 'fail' && shown) console.log(`page at ${shown.url()}:\n${await shown.locator('body').innerText().catch(() => '(unreadable)')}`);
  };
}
