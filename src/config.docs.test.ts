import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS_COMMAND, configVariables, renderConfigurationDoc, renderEnvExample } from '../scripts/lib/configDocs.js';
import { ConfigError, loadConfig } from './config.js';
import { envSchema } from './configSchema.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFile(path.join(ROOT, file), 'utf8');

function problemVariables(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((problem) => problem.split(':')[0]!);
    throw err;
  }
}

/** A production environment loadConfig accepts, to take one variable away from or add one to. */
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://issuer.example',
  AUTH_AUDIENCE: 'https://api.example',
  KEY_HASH_SECRET: 'k'.repeat(32),
  PAYLOAD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe('the configuration documents, generated from src/configSchema.ts', () => {
  it('describes every variable the schema reads', () => {
    expect(configVariables().map((variable) => variable.name).sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('matches the committed docs/configuration.md', async () => {
    expect(await read('docs/configuration.md'), `docs/configuration.md is out of date: run \`${CONFIG_DOCS_COMMAND}\``).toBe(renderConfigurationDoc());
  });

  it('matches the committed .env.example', async () => {
    const example = renderEnvExample(await read('docker-compose.yml'));
    expect(await read('.env.example'), `.env.example is out of date: run \`${CONFIG_DOCS_COMMAND}\``).toBe(example);
  });

  it('states only production rules that loadConfig enforces', () => {
    expect(problemVariables(PRODUCTION)).toEqual([]);
    const ruled = configVariables().filter((variable) => variable.production !== undefined);
    expect(ruled.map((variable) => variable.name).sort()).toEqual(
      ['AUTH_AUDIENCE', 'AUTH_ISSUER', 'DEV_IDP_BEHIND_LOOPBACK', 'KEY_HASH_SECRET', 'PAYLOAD_ENCRYPTION_KEYS', 'WEBHOOK_ALLOW_PRIVATE', 'WEBHOOK_TEST_LOOPBACK'],
    );
    for (const { name, production } of ruled) {
      if (production && 'required' in production) {
        const without = Object.fromEntries(Object.entries(PRODUCTION).filter(([key]) => key !== name));
        expect(problemVariables(without), `${name} is documented as required in production`).toContain(name);
      } else if (production) {
        expect(problemVariables({ ...PRODUCTION, [name]: production.refuses }), `${name}=${production.refuses} is documented as refused in production`).toContain(name);
      }
    }
  });

});
