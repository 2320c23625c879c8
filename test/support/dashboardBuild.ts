import { access, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'vite';
import { REPO_ROOT } from './processes.js';
import { sourceHash } from './sourceHash.js';

const CACHE_ROOT = path.join(REPO_ROOT, 'node_modules', '.cache', 'dashboard-dist');
const INPUTS = ['dashboard/src', 'dashboard/index.html', 'dashboard/vite.config.ts', 'client/src', 'package-lock.json'];

/**
 * The dashboard built once per change of its sources (node_modules/.cache/dashboard-dist/<hash>),
 * so browser tests pay for `vite build` only when the front end changed. Built into a scratch
 * directory and renamed into place, so test files starting together never see half a build.
 */
export async function builtDashboard(): Promise<string> {
  const target = path.join(CACHE_ROOT, await sourceHash(INPUTS));
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
