import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * `tools/compose-check`: the real compose loader (compose-go) as a small binary, built with Go once
 * per version of its sources and cached, so the compose file is tested as `docker compose` reads it.
 */
const SOURCE_DIR = path.resolve(import.meta.dirname, '../../tools/compose-check');
const SOURCES = ['go.mod', 'go.sum', 'main.go'];

async function binaryPath(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of SOURCES) hash.update(await readFile(path.join(SOURCE_DIR, name)));
  const cacheRoot = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'domain-service', `compose-check-${hash.digest('hex').slice(0, 12)}`);
}

export async function resolveComposeCheck(log: (line: string) => void): Promise<string> {
  const binary = await binaryPath();
  try {
    await access(binary, constants.X_OK);
    return binary;
  } catch {
    // not built yet
  }
  await mkdir(path.dirname(binary), { recursive: true });
  log(`Building ${path.basename(binary)} (compose-go) with go build; first time only`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['build', '-o', binary, '.'], {
      cwd: SOURCE_DIR,
      env: { ...process.env, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go build exited with ${code}`))));
  });
  return binary;
}
