import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { DEV_AUDIENCE, DEV_ISSUER, loadDevIdentityProvider } from '../../src/auth/dev/devIdentityProvider.js';
import { readOrCreateDataDirSecret } from '../../src/dataDir.js';
import { runTs } from '../support/processes.js';
import { freePort } from '../../scripts/lib/temporalDevServer.js';

// docker-compose.yml runs the api and the worker on one data volume: whoever starts together on an
// empty data dir must settle on one signing key and one secret, or the loser's tokens are refused.
describe('development files created by starts that overlap', () => {
  const dirs: string[] = [];
  const freshDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dev-key-race-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const verifierFor = async (dataDir: string) => {
    const stored = JSON.parse(await readFile(path.join(dataDir, 'dev-idp-signing-key.json'), 'utf8')) as { publicJwk: JWK };
    const jwks = createLocalJWKSet({ keys: [stored.publicJwk] });
    return (token: string) => jwtVerify(token, jwks, { issuer: DEV_ISSUER, audience: DEV_AUDIENCE });
  };

  it('gives every overlapping start the key left on disk, and one secret to all', async () => {
    const dataDir = await freshDir();
    const providers = await Promise.all(Array.from({ length: 20 }, () => loadDevIdentityProvider(dataDir)));
    const verify = await verifierFor(dataDir);
    for (const [i, provider] of providers.entries()) {
      await expect(verify(await provider.issueToken({ email: `user${i}@example.com` }))).resolves.toBeDefined();
    }
    const secrets = await Promise.all(Array.from({ length: 20 }, (_, i) => readOrCreateDataDirSecret(dataDir, 'key-hash-secret', () => `secret-${i}`)));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^secret-\d+$/);
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('holds across processes: tokens printed by `npm run token` started together all verify', async () => {
    const dataDir = await freshDir();
    // As `npm run dev` leaves it: `npm run token` signs with that key and never makes one.
    await loadDevIdentityProvider(dataDir);
    const port = String(await freePort());
    const runs = Array.from({ length: 4 }, (_, i) =>
      runTs('src/cli/token.ts', ['--email', `user${i}@example.com`], { DATA_DIR: dataDir, NODE_ENV: 'development', PORT: port }),
    );
    expect(await Promise.all(runs.map((run) => run.exited))).toEqual([0, 0, 0, 0]);
    const verify = await verifierFor(dataDir);
    for (const run of runs) await expect(verify(run.output().trim().split('\n').pop()!)).resolves.toBeDefined();
  }, 60_000);
});
