/**
 * Temporal's own server and SQL schema tool, built from the Go module proxy into the tool cache as
 * scripts/lib/temporalCli.ts builds the CLI, and the Web UI server (the version the pinned CLI embeds).
 * The compose file names temporalio/server:1.31.0; the proxy has no v1.31.0, so this is the nearest
 * patch release of that minor version.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { goInstall, isExecutable, toolCacheDir } from '../goTools.js';

export const TEMPORAL_SERVER_VERSION = '1.31.2';
export const TEMPORAL_UI_SERVER_VERSION = '2.42.1';

export interface TemporalBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
  /** The module's schema/postgresql/v12 directory (temporal/ and visibility/, each with versioned/). */
  schemaDir: string;
}

function moduleDir(module: string, version: string): string {
  const result = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' });
  return path.join(result.stdout.trim(), `${module}@v${version}`);
}

async function ensure(dir: string, binary: string, packages: string[], log: (line: string) => void): Promise<string> {
  const file = path.join(dir, binary);
  if (await isExecutable(file)) return file;
  log(`Building ${packages.join(' ')} with go install into ${dir} (first time only; takes a few minutes)`);
  const started = Date.now();
  await goInstall(dir, packages);
  log(`Built ${file} in ${Math.round((Date.now() - started) / 1000)} s`);
  return file;
}

export async function resolveTemporalBinaries(log: (line: string) => void): Promise<TemporalBinaries> {
  const serverDir = toolCacheDir(`temporal-server-v${TEMPORAL_SERVER_VERSION}`);
  const v = `@v${TEMPORAL_SERVER_VERSION}`;
  const server = await ensure(serverDir, 'server', [`go.temporal.io/server/cmd/server${v}`, `go.temporal.io/server/cmd/tools/sql${v}`], log);
  const sqlTool = path.join(serverDir, 'sql');
  if (!(await isExecutable(sqlTool))) await goInstall(serverDir, [`go.temporal.io/server/cmd/tools/sql${v}`]);
  const uiServer = await ensure(
    toolCacheDir(`temporal-ui-server-v${TEMPORAL_UI_SERVER_VERSION}`),
    'server',
    [`github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_SERVER_VERSION}`],
    log,
  );
  const schemaDir = path.join(moduleDir('go.temporal.io/server', TEMPORAL_SERVER_VERSION), 'schema', 'postgresql', 'v12');
  if (!existsSync(schemaDir)) throw new Error(`Temporal's schema files are not at ${schemaDir}`);
  return { server, sqlTool, uiServer, schemaDir };
}
