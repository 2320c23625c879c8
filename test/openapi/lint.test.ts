/**
 * The OpenAPI document passes the two linters people point at an API's document, Redocly CLI and
 * Spectral, with no error and no warning, under their rules in redocly.yaml and .spectral.yaml.
 * Each runs as its own process on the document the api serves, as a user would run it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildServedDocument } from '../../client/scripts/document.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
const run = promisify(execFile);

/** A linter's output, whatever its exit status (both exit non-zero when they find an error). */
async function output(file: string, args: string[]): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(file, args, { cwd: root, env, timeout: 90_000, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (failed.stdout) return failed.stdout;
    throw error;
  }
}

let dir: string;
let documentPath: string;
let document: { tags?: { name: string; description?: string }[]; paths: Record<string, Record<string, { tags?: string[] }>> };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  documentPath = path.join(dir, 'openapi.json');
  document = buildServedDocument() as typeof document;
  await writeFile(documentPath, JSON.stringify(document, null, 2));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the OpenAPI document', () => {
  it('describes every tag its operations use, once, at the top', () => {
    const used = new Set(Object.values(document.paths).flatMap((operations) => Object.values(operations).flatMap((operation) => operation.tags ?? [])));
    const listed = document.tags ?? [];
    expect(listed.map((tag) => tag.name).sort()).toEqual([...used].sort());
    expect(listed.filter((tag) => !tag.description?.trim())).toEqual([]);
  });

  it('passes Redocly CLI’s recommended rules with no error and no warning', async () => {
    const report = JSON.parse(await output(bin('redocly'), ['lint', '--format', 'json', '--config', 'redocly.yaml', documentPath])) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('passes Spectral’s OpenAPI rules with no error and no warning', async () => {
    // Spectral writes a summary after the JSON on stdout: the report goes to a file of its own.
    const reportPath = path.join(dir, 'spectral.json');
    await output(bin('spectral'), ['lint', '--format', 'json', '--output', reportPath, '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', documentPath]);
    const results = JSON.parse(await readFile(reportPath, 'utf8')) as {
      code: string;
      message: string;
      path: string[];
    }[];
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 120_000);
});
