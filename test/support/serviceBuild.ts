import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';
import { sourceHash } from './sourceHash.js';

/** What `npm run build` compiles (tsconfig.build.json, the dashboard) and what it compiles with. */
const INPUTS = ['src', 'dashboard', 'client/src', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const STAMP = path.join(REPO_ROOT, 'dist', '.source-hash');

/**
 * `dist/` as `npm run build` makes it, built only when the sources changed since the last build a
 * test made (dist/.source-hash): a test run that starts compiled processes pays for the build once,
 * and a second run of unchanged sources not at all.
 */
export async function builtService(): Promise<void> {
  const hash = await sourceHash(INPUTS);
  if ((await readFile(STAMP, 'utf8').catch(() => '')) === hash) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  await writeFile(STAMP, hash);
}
