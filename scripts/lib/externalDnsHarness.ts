import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * test/external-dns: the Go harness that drives our webhook provider with external-dns's own
 * packages. external-dns's go.mod asks for Go 1.27, which the go command fetches as a toolchain
 * module from the module proxy when told to; building its packages takes minutes the first time,
 * then Go's build cache makes `go test` there a matter of seconds.
 */
export const EXTERNAL_DNS_HARNESS_DIR = path.resolve(import.meta.dirname, '../../test/external-dns');
export const EXTERNAL_DNS_GO_ENV = { GOTOOLCHAIN: 'go1.27.3' } as const;

/**
 * Downloads the harness's modules and compiles its tests into Go's caches, running none (.ci/run).
 * `go test` then says `ok <package> [no tests to run]`, a closing line CI would read as a run that
 * executed no test, so that line is said in other words.
 */
export function prebuildExternalDnsHarness(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', '-count=1', '-run', '^$', './...'], {
      cwd: EXTERNAL_DNS_HARNESS_DIR,
      env: { ...process.env, ...EXTERNAL_DNS_GO_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Line by line: the `ok … [no tests to run]` closing lines are said in other words.
    createInterface({ input: child.stdout }).on('line', (line) => {
      const compiled = /^ok\s+(\S+)\s.*\[no tests to run\]$/.exec(line);
      console.log(compiled ? `compiled ${compiled[1]} (its tests run in npm test)` : line);
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`go test -run '^$' exited with ${code}`))));
  });
}
