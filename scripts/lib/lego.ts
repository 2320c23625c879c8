import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { goAvailable, isExecutable, toolCacheDir } from './goTools.js';

const run = promisify(execFile);

/**
 * lego, the ACME client, with all its DNS providers. Debian's `lego` package (what `.ci/run`
 * installs for the httpreq provider) is built without `acme-dns` (Debian #968964), so the certificate
 * tests build the same version, 4.9.1, from the Go module proxy once into a cache. `go install
 * …@v4.9.1` is refused here (the proxy lists no versions of the module for go's deprecation check),
 * so the module is downloaded and built inside a copy of itself, with its own go.mod and go.sum.
 * Several minutes and about 1 GB of modules, once.
 */
export const LEGO_VERSION = '4.9.1';
const MODULE = 'github.com/go-acme/lego/v4';

export function legoCacheDir(): string {
  return toolCacheDir(`lego-v${LEGO_VERSION}`);
}

async function buildLego(binary: string, log: (line: string) => void): Promise<void> {
  log(`Building lego v${LEGO_VERSION} (every DNS provider) from the Go module proxy into ${path.dirname(binary)} (first time only; takes minutes)`);
  const started = Date.now();
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  const { stdout } = await run('go', ['mod', 'download', '-json', `${MODULE}@v${LEGO_VERSION}`], { env, maxBuffer: 10 * 1024 * 1024 });
  const source = (JSON.parse(stdout) as { Dir: string }).Dir;
  const work = await mkdtemp(path.join(os.tmpdir(), 'lego-build-'));
  try {
    // The module cache is read-only; building may write go.sum entries.
    await cp(source, work, { recursive: true });
    await run('chmod', ['-R', 'u+w', work]);
    // The golang.org/x/net that 4.9.1 pins reaches into the runtime by linkname, which today's linker
    // refuses unless told not to check.
    const ldflags = `-checklinkname=0 -X main.version=${LEGO_VERSION}`;
    await run('go', ['build', '-trimpath', `-ldflags=${ldflags}`, '-o', binary, './cmd/lego'], { cwd: work, env, maxBuffer: 50 * 1024 * 1024 });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log(`Built ${binary} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** `LEGO_BINARY` (a lego with the acme-dns provider), else the cached build, else a build now when Go is here. */
export async function resolveLego(log: (line: string) => void): Promise<string> {
  const configured = process.env.LEGO_BINARY;
  if (configured) {
    if (await isExecutable(configured)) return configured;
    throw new Error(`LEGO_BINARY=${configured} is not an executable file`);
  }
  const cached = path.join(legoCacheDir(), 'lego');
  if (await isExecutable(cached)) return cached;
  if (!goAvailable()) throw new Error('No lego with the acme-dns provider, and no Go toolchain to build one (set LEGO_BINARY)');
  await buildLego(cached, log);
  return cached;
}
