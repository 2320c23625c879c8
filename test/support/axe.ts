/**
 * axe-core run inside a page the browser tests visit: every violation of the WCAG 2.x A and AA rules
 * (and axe's best practices) fails the test, listed with its rule, impact, element and help text.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { AxeResults } from 'axe-core';

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

interface Violation {
  id: string;
  impact: string;
  target: string;
  help: string;
}

/** The violations axe finds on what the page shows now. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const source = await axeSource;
  // Evaluated through the DevTools protocol, which the pages' Content-Security-Policy does not govern
  // (a <script> tag would be refused); a reload or a redirect drops it, a client-side navigation keeps it.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(source);
  const results = await page.evaluate<AxeResults>(`window.axe.run(document, { resultTypes: ['violations'] })`);
  return results.violations.flatMap((v) =>
    v.nodes.map((node) => ({ id: v.id, impact: v.impact ?? 'unknown', target: node.target.map(String).join(' '), help: v.help })),
  );
}

/** Fails the test listing each violation on the page as it is now (softly: the test goes on, so one run lists every page's); `label` names the page. */
export async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  const violations = await axeViolations(page);
  const lines = violations.map((v) => `${v.id} (${v.impact}) at ${v.target}: ${v.help}`);
  expect.soft(lines, `axe-core violations on ${label} (${page.url()})`).toEqual([]);
}
