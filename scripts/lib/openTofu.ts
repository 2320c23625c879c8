import { spawn } from 'node:child_process';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { goAvailable, isExecutable, toolCacheDir } from './goTools.js';

/**
 * OpenTofu, the binary the Terraform provider's acceptance tests drive (terraform-provider/). Terraform
 * itself does not build from the Go module proxy; OpenTofu does, but its go.mod has a `replace`
 * directive, which `go install` refuses: so its module is downloaded and `go build ./cmd/tofu` runs
 * inside it, once per version, into the cache (about six minutes on two cores, 160 MB).
 */
export const OPENTOFU_VERSION = '1.12.6';
const MODULE = 'github.com/opentofu/opentofu';

export function openTofuCacheDir(): string {
  return toolCacheDir(`opentofu-v${OPENTOFU_VERSION}`);
}

function run(command: string, args: string[], cwd: string, capture: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** `OPENTOFU_PATH`, else the cached build, else a build of the pinned version (needs Go). */
export async function resolveOpenTofu(log: (line: string) => void): Promise<string> {
  const configured = process.env.OPENTOFU_PATH;
  if (configured) {
    if (await isExecutable(configured)) return configured;
    throw new Error(`OPENTOFU_PATH=${configured} is not an executable file`);
  }
  const binary = path.join(openTofuCacheDir(), 'tofu');
  if (await isExecutable(binary)) return binary;
  if (!goAvailable()) throw new Error('OpenTofu is not built and there is no Go toolchain to build it (set OPENTOFU_PATH)');
  log(`Building OpenTofu v${OPENTOFU_VERSION} from its module into ${openTofuCacheDir()} (first time only; several minutes)`);
  const started = Date.now();
  const download = JSON.parse(await run('go', ['mod', 'download', '-json', `${MODULE}@v${OPENTOFU_VERSION}`], process.cwd(), true)) as { Dir?: string; Error?: string };
  if (!download.Dir) throw new Error(`go mod download ${MODULE}@v${OPENTOFU_VERSION}: ${download.Error ?? 'no directory'}`);
  await mkdir(openTofuCacheDir(), { recursive: true });
  // Built to a temporary name and renamed, so an interrupted build never leaves a broken binary cached.
  const partial = `${binary}.partial`;
  await run('go', ['build', '-trimpath', '-ldflags', `-X ${MODULE}/version.dev=no`, '-o', partial, './cmd/tofu'], download.Dir, false);
  await rename(partial, binary);
  log(`Built ${binary} in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}
