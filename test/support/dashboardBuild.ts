import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'vite';
import { REPO_ROOT } from './processes.js';

const CACHE_ROOT = path.join(REPO_ROOT, 'node_modules', '.cache', 'dashboard-dist');
const INPUTS = ['dashboard/src', 'dashboard/index.html', 'dashboard/vite.config.ts', 'client/src', 'package-lock.json'];

async function filesUnder(relative: string): Promise<string[]> {
  const full = path.join(REPO_ROOT, relative);
  const entries = await readdir(full, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return [relative];
  const nested = await Promise.all(entries.map((e) => filesUnder(path.join(relative, e.name))));
  return nested.flat().sort();
}

/** A hash of everything the bundle is made from: the same sources give the same build. */
async function sourceHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of (await Promise.all(INPUTS.map(filesUnder))).flat()) {
    hash.update(file);
    hash.update(await readFile(path.join(REPO_ROOT, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The dashboard built once per change of its sources (node_modules/.cache/dashboard-dist/<hash>),
 * so browser tests pay for `vite build` only when the front end changed. Built into a scratch
 * directory and renamed into place, so test files starting together never see half a build.
 */
export async function builtDashboard(): Promise<string> {
  const target = path.join(CACHE_ROOT, await sourceHash());
  try {
    await access(path.join(target, 'index.html'));
    return target;
  } catch {
    // not built yet
  }
  await mkdir(CACHE_ROOT, { recursive: true });
  const scratch = `${target}.${process.pid}.tmp`;
  await build({
    configFile: path.join(REPO_ROOT, 'dashboard', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: scratch, emptyOutDir: true },
  });
  try {
    await rename(scratch, target);
  } catch {
    // Another test file finished the same build first.
    await rm(scratch, { recursive: true, force: true });
  }
  return target;
}
