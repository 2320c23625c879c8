/**
 * The completion scripts, made from the command tree, run in the real shells (Debian's bash, zsh and
 * fish; .ci/run installs them): what a person gets pressing Tab.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from './program.js';
import { commandTree, completionScript } from './completions.js';

const run = promisify(execFile);
let dir: string;
const program = buildProgram();
const script = async (shell: 'bash' | 'zsh' | 'fish') => {
  const file = path.join(dir, `completion.${shell}`);
  await writeFile(file, completionScript(shell, program));
  return file;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'completions-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** What bash offers after the words typed (the last one being completed). */
async function bash(typed: string[]): Promise<string[]> {
  const file = await script('bash');
  const words = typed.map((word) => `'${word}'`).join(' ');
  const { stdout } = await run('bash', ['-c', `source ${file}; COMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}; _domain_service; printf '%s\\n' "\${COMPREPLY[@]}"`]);
  return stdout.split('\n').filter(Boolean).sort();
}

/** What fish offers for the command line typed so far. */
async function fish(line: string): Promise<string[]> {
  const file = await script('fish');
  const { stdout } = await run('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`]);
  return stdout.split('\n').filter(Boolean).map((entry) => entry.split('\t')[0]!).sort();
}

describe('shell completions', () => {
  it('cover every command of the tree', () => {
    const paths = commandTree(program).map((node) => node.path.join(' ')).filter(Boolean);
    expect(paths).toEqual(expect.arrayContaining(['login', 'domains register', 'records apply', 'webhooks listen', 'completion']));
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const text = completionScript(shell, program);
      for (const commandPath of paths) expect(text, `${shell}: ${commandPath}`).toContain(commandPath);
    }
  });

  it('bash completes commands, subcommands after global options, options and their choices', async () => {
    expect(await bash(['domain-service', 'do'])).toEqual(['domains']);
    expect(await bash(['domain-service', '--org', 'org_1', 'domains', 're'])).toEqual(['register', 'renew']);
    expect(await bash(['domain-service', 'domains', 'register', 'example.com', '--w'])).toEqual(['--wait', '--whois-privacy']);
    expect(await bash(['domain-service', 'keys', 'create', 'ci', '--preset', ''])).toEqual(['certificates', 'ci', 'monitoring', 'registrar_tooling']);
  });

  it('fish completes the same, each command on its own', async () => {
    expect(await fish('domain-service records ')).toEqual(['add', 'apply', 'list', 'rm']);
    expect(await fish('domain-service --test operations wait op_1 --ti')).toEqual(['--timeout']);
  });

  it('zsh loads the script and registers it', async () => {
    const file = await script('zsh');
    await run('zsh', ['-n', file]);
    const { stdout } = await run('zsh', ['-f', '-c', `autoload -U compinit && compinit -u -D && source ${file} && print -- $_comps[domain-service]`]);
    expect(stdout.trim()).toBe('_domain_service');
  });
});
