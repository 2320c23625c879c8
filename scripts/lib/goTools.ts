import { spawn, spawnSync } from 'node:child_process';
import { access, constants, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * What the tools we build from the Go module proxy share (the Temporal CLI, stripe-mock): a cache
 * directory per tool and version, PATH look-ups, and `go install` into that cache.
 */
export function toolCacheDir(name: string): string {
  const cacheRoot = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'domain-service', name);
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function onPath(binary: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, binary);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function goAvailable(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

/** `CGO_ENABLED=0 GOBIN=<dir> go install <args>`; resolves when the binary is in `dir`. */
export async function goInstall(dir: string, args: string[], stdio: 'inherit' | 'ignore' = 'inherit'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', ...args], {
      env: { ...process.env, CGO_ENABLED: '0', GOBIN: dir, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', stdio, stdio],
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install exited with ${code}`))));
  });
}
