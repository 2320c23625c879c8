import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { AnsiUp } from 'ansi_up';
import { launchChromium } from './chromium.js';
import { CLI_BIN } from './cli.js';
import { REPO_ROOT } from './processes.js';
import { randomBase62 } from '../../src/ids.js';

const run = promisify(execFile);
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'screenshots') : undefined;

/** A terminal a person types into: a tmux pane (Debian's tmux; .ci/run installs it), read back as its screen. */
export interface Terminal {
  /** Types a line and presses Enter. */
  type(line: string, pane?: number): Promise<void>;
  /** Presses keys (tmux key names: `y`, `Enter`, `C-c`). */
  press(keys: string[], pane?: number): Promise<void>;
  /** What the pane shows now, as text. */
  screen(pane?: number): Promise<string>;
  /** Waits until the pane shows `pattern`; answers the screen. */
  waitForScreen(pattern: RegExp, pane?: number, timeoutMs?: number): Promise<string>;
  /** A second pane below the first, with the same shell. */
  split(): Promise<number>;
  /** The whole window, colours included, as a PNG in docs/screenshots/ (only under DASHBOARD_SCREENSHOTS=1). */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A tmux server of the test's own (its own socket: never anyone else's tmux) running bash with only
 * `env` in its environment and `domain-service` on its PATH, as after `npm link`.
 */
export async function openTerminal(env: Record<string, string>, size = { width: 110, height: 30 }): Promise<Terminal> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'cli-terminal-'));
  const bin = path.join(home, 'bin');
  await mkdir(bin);
  await symlink(CLI_BIN, path.join(bin, 'domain-service'));
  const socket = `cli-test-${randomBase62(8)}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  const vars = {
    HOME: home,
    PATH: `${bin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    TERM: 'screen',
    LANG: 'C.UTF-8',
    PS1: '$ ',
    ...env,
  };
  const shell = `env -i ${Object.entries(vars).map(([k, v]) => `${k}=${quote(v)}`).join(' ')} bash --noprofile --norc`;
  await tmux('new-session', '-d', '-s', 'cli', '-x', String(size.width), '-y', String(size.height), '-c', home, shell);
  await tmux('set-option', '-t', 'cli', 'status', 'off');
  const target = (pane = 0) => `cli:0.${pane}`;
  const screen = async (pane = 0) => (await tmux('capture-pane', '-p', '-t', target(pane))).stdout;

  return {
    type: async (line, pane) => {
      await tmux('send-keys', '-t', target(pane), '-l', line);
      await tmux('send-keys', '-t', target(pane), 'Enter');
    },
    press: async (keys, pane) => {
      await tmux('send-keys', '-t', target(pane), ...keys);
    },
    screen,
    waitForScreen: async (pattern, pane, timeoutMs = 20_000) => {
      let shown = '';
      await expect
        .poll(
          async () => {
            shown = await screen(pane);
            return pattern.test(shown);
          },
          { timeout: timeoutMs, interval: 50, message: `the terminal never showed ${pattern}` },
        )
        .toBe(true)
        .catch((err: Error) => {
          throw new Error(`${err.message}; it shows:\n${shown}`);
        });
      return shown;
    },
    split: async () => {
      await tmux('split-window', '-v', '-t', 'cli:0', '-c', home, shell);
      return Number((await tmux('display-message', '-p', '-t', 'cli:0', '#{pane_index}')).stdout.trim());
    },
    screenshot: async (name) => {
      if (!SCREENSHOTS) return;
      const panes = (await tmux('list-panes', '-t', 'cli:0', '-F', '#{pane_index}')).stdout.trim().split('\n');
      const html = [];
      for (const pane of panes) {
        const ansi = (await tmux('capture-pane', '-p', '-e', '-t', target(Number(pane)))).stdout.replace(/\n+$/, '');
        html.push(`<pre>${new AnsiUp().ansi_to_html(ansi)}</pre>`);
      }
      await renderScreen(html.join('<hr>'), path.join(SCREENSHOTS, name), size.width);
    },
    close: async () => {
      await tmux('kill-server').catch(() => undefined);
      await rm(home, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** A terminal's screen as the person sees it: light text on a dark background, in a monospace font. */
async function renderScreen(body: string, file: string, columns: number): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: Math.ceil(columns * 8.45) + 40, height: 200 }, deviceScaleFactor: 1 });
    await page.setContent(
      `<!doctype html><html><head><meta charset="utf-8"><style>
        body{margin:0;padding:16px 20px;background:#1e1e1e;color:#d4d4d4;font:14px/1.35 'DejaVu Sans Mono',monospace}
        pre{margin:0;font:inherit;white-space:pre}hr{border:0;border-top:1px solid #555;margin:8px 0}
      </style></head><body>${body}</body></html>`,
    );
    await page.screenshot({ path: file, fullPage: true });
  } finally {
    await browser.close();
  }
}
