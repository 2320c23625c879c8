/**
 * The Terraform provider (terraform-provider/) against the real service in test mode, with OpenTofu
 * as the binary: this file starts the app with its worker, makes an organisation with a test-mode
 * key and a balance, and runs the provider's acceptance tests (`go test`), which create, change,
 * import, find drift in and destroy every resource through `tofu`. OpenTofu is built once from its
 * Go module and cached (scripts/lib/openTofu.ts; .ci/run builds it first).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createKey, jsonHeaders } from '../support/actors.js';
import { insertOrg, insertUser, sessionOf } from '../support/factories.js';
import { REPO_ROOT } from '../support/processes.js';
import { SCOPES } from '../../src/auth/scopes.js';
import { resolveOpenTofu } from '../../scripts/lib/openTofu.js';
import { generateTerraformDocs } from '../../scripts/lib/terraformDocs.js';

const PROVIDER_DIR = path.join(REPO_ROOT, 'terraform-provider');
const GO_TEST_TIMEOUT = '12m';

let app: TestApp;
let tofu: string;
let cliConfigDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  tofu = await resolveOpenTofu((line) => console.log(line));
  app = await startTestApp({ worker: true });
  // An organisation on the plan whose limits let a test suite's bursts through, as a team running
  // Terraform in CI would have; its owner makes the provider's key as a person would.
  const owner = await insertUser(app.deps);
  const org = await insertOrg(app.deps, { owner, plan: 'enterprise' });
  const session = await sessionOf(app.deps, owner);
  const key = await createKey(app, session, { name: 'terraform acceptance tests', mode: 'test', scopes: [...SCOPES] });
  const topUp = await app.fetch(`/api/v1/orgs/${org.id}/billing/top-ups`, {
    method: 'POST',
    headers: { ...jsonHeaders(key.key), 'idempotency-key': 'terraform-tests' },
    body: JSON.stringify({ amount: 100_000 }),
  });
  expect(topUp.status).toBe(201);
  // A CLI configuration of the test's own, so no one's ~/.terraformrc (or TF_CLI_CONFIG_FILE) applies.
  cliConfigDir = await mkdtemp(path.join(os.tmpdir(), 'tofu-cli-'));
  await writeFile(path.join(cliConfigDir, 'tofurc'), '');
  env = {
    TF_ACC: '1',
    TF_ACC_TERRAFORM_PATH: tofu,
    TF_ACC_PROVIDER_NAMESPACE: 'hashicorp',
    TF_ACC_PROVIDER_HOST: 'registry.opentofu.org',
    TF_CLI_CONFIG_FILE: path.join(cliConfigDir, 'tofurc'),
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    DOMAIN_SERVICE_URL: app.url,
    DOMAIN_SERVICE_API_KEY: key.key,
    DOMAIN_SERVICE_ORG: org.id,
  };
}, 900_000);

afterAll(async () => {
  await app?.close();
  if (cliConfigDir) await rm(cliConfigDir, { recursive: true, force: true });
});

function goTest(extraEnv: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', './...', '-count=1', '-v', `-timeout=${GO_TEST_TIMEOUT}`], {
      cwd: PROVIDER_DIR,
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** The top-level Go tests (`func TestX(t *testing.T)`) in every _test.go file under `dir`. */
async function goTestNames(dir: string): Promise<string[]> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('_test.go'));
  const sources = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')));
  return sources.flatMap((source) => [...source.matchAll(/^func (Test\w+)\(t \*testing\.T\)/gm)].map((m) => m[1]!)).sort();
}

/** The verbose output's result line for a top-level test (`--- PASS: TestX (1.2s)`), or why there is none. */
const passLine = (output: string, name: string) => new RegExp(`^--- (PASS|FAIL|SKIP): ${name} .*$`, 'm').exec(output)?.[0] ?? `${name}: no result line`;

describe('Terraform provider with OpenTofu', () => {
  it('creates, updates, imports, finds drift in and destroys every resource, and plans a 2,000-record zone in one request', async () => {
    const { code, output } = await goTest(env);
    if (code !== 0) {
      const failed = output.split('\n').filter((line) => !/^(=== (RUN|PAUSE|CONT)|\s+--- PASS)/.test(line)).join('\n');
      throw new Error(`go test in terraform-provider/ exited with ${code}:\n${failed.slice(-20_000)}`);
    }
    // Every test the provider's sources declare, acceptance and unit alike, ran and passed: a test
    // added, renamed or given a t.Skip cannot pass unnoticed.
    const declared = await goTestNames(PROVIDER_DIR);
    expect(declared.filter((name) => name.startsWith('TestAcc')).length).toBeGreaterThanOrEqual(10);
    expect(declared.filter((name) => !/^--- PASS: /.test(passLine(output, name)))).toEqual([]);
    expect(output).not.toMatch(/^\s*--- SKIP: /m);
    const count = /a refresh and plan of a 2,000-record zone: (\d+) API request/.exec(output);
    expect(Number(count?.[1])).toBeLessThanOrEqual(2);
    console.log(count?.[0]);
  }, 900_000);

  it('has its reference (terraform-provider/docs/) generated from the current schema and examples', async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'terraform-docs-check-'));
    try {
      await cp(path.join(PROVIDER_DIR, 'examples'), path.join(copy, 'examples'), { recursive: true });
      await generateTerraformDocs(tofu, copy);
      const files = (await readdir(path.join(PROVIDER_DIR, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).sort();
      const generated = (await readdir(path.join(copy, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).sort();
      expect(files, 'terraform-provider/docs/ is out of date: run npm run terraform:docs').toEqual(generated);
      for (const file of files) {
        const [committed, fresh] = await Promise.all([readFile(path.join(PROVIDER_DIR, 'docs', file), 'utf8'), readFile(path.join(copy, 'docs', file), 'utf8')]);
        expect(committed, `terraform-provider/docs/${file} is out of date: run npm run terraform:docs`).toBe(fresh);
      }
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 300_000);
});
