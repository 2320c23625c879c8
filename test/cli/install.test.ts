/**
 * The command line as the package installs it: `npx domain-service` in the repository after
 * `npm install`, and the bin itself, executable, with nothing built first.
 */
import { execFile } from 'node:child_process';
import { readFile, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_BIN } from '../support/cli.js';
import { REPO_ROOT } from '../support/processes.js';

const run = promisify(execFile);

describe('installing the command line', () => {
  it('is the package’s bin, executable, and runs through npx from the repository', async () => {
    const { version, bin } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(path.join(REPO_ROOT, bin['domain-service']!)).toBe(CLI_BIN);
    expect((await stat(CLI_BIN)).mode & 0o111).toBe(0o111);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    expect((await run('npx', ['--yes', 'domain-service', '--version'], { cwd: REPO_ROOT, env })).stdout).toBe(`${version}\n`);
    expect((await run(CLI_BIN, ['--version'], { env })).stdout).toBe(`${version}\n`);
  });

  it('runs a bundle of its source, rebuilt when a source file is newer than it (so it starts fast and is never stale)', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    const bundle = path.join(REPO_ROOT, 'cli/.bundle/main.js');
    await run(CLI_BIN, ['--version'], { env });
    const inputs = JSON.parse(await readFile(path.join(REPO_ROOT, 'cli/.bundle/inputs.json'), 'utf8')) as string[];
    expect(inputs).toEqual(expect.arrayContaining(['cli/src/main.ts', 'cli/src/program.ts', 'client/src/index.ts']));
    expect(inputs.filter((input) => input.includes('node_modules'))).toEqual([]);
    const built = (await stat(bundle)).mtimeMs;
    // A source file saved after the bundle was built: the next run builds it again, and says the same.
    const source = path.join(REPO_ROOT, 'cli/src/exitCodes.ts');
    const saved = new Date(Math.ceil(built) + 2_000);
    await utimes(source, saved, saved);
    expect((await run(CLI_BIN, ['--version'], { env })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await stat(bundle)).mtimeMs).toBeGreaterThanOrEqual(built);
    expect((await stat(bundle)).mtimeMs).not.toBe(built);
  });
});
