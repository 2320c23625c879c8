import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** BIND's `named-checkzone <zone> <file>` on the text (`.ci/run` installs bind9-utils): its exit code and what it printed. */
export async function namedCheckzone(zone: string, text: string): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'checkzone-'));
  const file = path.join(dir, `${zone}.zone`);
  try {
    await writeFile(file, text);
    return await new Promise((resolve, reject) => {
      execFile('named-checkzone', [zone, file], (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') reject(new Error(`named-checkzone did not run: ${err.message}`, { cause: err }));
        else resolve({ code: err ? Number(err.code) : 0, output: `${stdout}${stderr}` });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
