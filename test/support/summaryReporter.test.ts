import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const fixtures = path.join(import.meta.dirname, 'summaryReporter.fixtures');

/** The summary line of a vitest run over the fixtures, which fails (as the run it stands for). */
async function summaryOf(...files: string[]): Promise<string> {
  const run = await promisify(execFile)('npx', ['vitest', 'run', '--root', fixtures, ...files], { cwd: fixtures }).then(
    () => {
      throw new Error('the fixtures run passed');
    },
    (err: { stdout: string; code: number }) => err,
  );
  expect(run.code).toBe(1);
  return run.stdout.match(/^tests: .*$/m)?.[0] ?? `no summary line in:\n${run.stdout}`;
}

describe('the summary line CI reads', () => {
  it('counts tests a failed beforeAll kept from running as failed, not skipped', async () => {
    expect(await summaryOf('beforeAllFails')).toBe('tests: 0 passed, 2 failed, 0 skipped');
  });

  it('counts a failed afterAll and a file that does not load as one failure each, and a skip on purpose as skipped', async () => {
    expect(await summaryOf('mixed', 'doesNotLoad')).toBe('tests: 2 passed, 3 failed, 1 skipped');
  });
});
