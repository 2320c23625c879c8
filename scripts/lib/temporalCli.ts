import path from 'node:path';
import { goAvailable, goInstall, isExecutable, onPath, toolCacheDir } from './goTools.js';

export { goAvailable };

/**
 * Finds the Temporal CLI (it contains the dev server and the Web UI), or builds the pinned
 * version with `go install` into a cache directory. v1.5.1 is the newest tag whose go.mod has no
 * `replace` directive, so the newest one `go install` accepts.
 */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';

export function temporalCliCacheDir(): string {
  return process.env.TEMPORAL_CLI_CACHE ?? toolCacheDir(`temporal-cli-v${TEMPORAL_CLI_VERSION}`);
}

/** `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then the cache. */
export async function findTemporalCli(): Promise<string | undefined> {
  const configured = process.env.TEMPORAL_CLI_PATH;
  if (configured) {
    if (await isExecutable(configured)) return configured;
    throw new Error(`TEMPORAL_CLI_PATH=${configured} is not an executable file`);
  }
  const cached = path.join(temporalCliCacheDir(), 'temporal');
  return (await onPath('temporal')) ?? ((await isExecutable(cached)) ? cached : undefined);
}

/** Builds the pinned CLI into the cache (a few minutes and a few hundred MB of modules, once). */
export async function buildTemporalCli(log: (line: string) => void): Promise<string> {
  const dir = temporalCliCacheDir();
  log(`Building Temporal CLI v${TEMPORAL_CLI_VERSION} with go install into ${dir} (first time only; takes a few minutes)`);
  const started = Date.now();
  await goInstall(dir, ['-ldflags', `-X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`, `${MODULE}@v${TEMPORAL_CLI_VERSION}`]);
  const binary = path.join(dir, 'temporal');
  log(`Built ${binary} in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/**
 * The CLI to run, building it when Go is here. `undefined` means neither a CLI nor Go: callers
 * fall back to the SDK's own download of the dev server (needs internet).
 */
export async function resolveTemporalCli(log: (line: string) => void): Promise<string | undefined> {
  const found = await findTemporalCli();
  if (found) return found;
  if (goAvailable()) return buildTemporalCli(log);
  log('No Temporal CLI and no Go toolchain: falling back to the SDK download of the dev server (needs internet).');
  return undefined;
}
