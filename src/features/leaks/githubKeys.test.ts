import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { GithubKeysUnavailableError, GithubSecretScanningKeys } from './githubKeys.js';
import { startFakeGithub, type FakeGithub } from '../../../test/support/fakeGithub.js';

let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub();
});
afterAll(async () => github?.close());

const logger = createLogger({ logLevel: 'silent' });
const body = Buffer.from('[{"token":"svc_live_x","type":"t","url":"https://github.com/a/b","source":"content"}]');

describe('GitHub secret-scanning public keys', () => {
  it('verifies a signature made the way GitHub makes them, and refuses a changed body or another key', async () => {
    const keys = new GithubSecretScanningKeys({ apiUrl: github.url, token: undefined, logger });
    const signer = github.keys[0]!;
    const signature = github.sign(body.toString(), signer);
    expect(await keys.verify(body, signer.identifier, signature)).toEqual({ ok: true, keyIdentifier: signer.identifier });
    expect(await keys.verify(Buffer.from(body.toString().replace('a/b', 'a/c')), signer.identifier, signature)).toMatchObject({ ok: false });
    expect(await keys.verify(body, signer.identifier, github.sign(body.toString(), github.unpublishedKey()))).toMatchObject({ ok: false });
    expect(await keys.verify(body, signer.identifier, '')).toMatchObject({ ok: false });
  });

  it('caches the key list, refreshes it once on an unknown identifier (a rotation), and not again within the interval', async () => {
    const keys = new GithubSecretScanningKeys({ apiUrl: github.url, token: undefined, logger, minRefreshIntervalMs: 0 });
    const first = github.keys[0]!;
    const fetchesBefore = github.keyFetches;
    expect((await keys.verify(body, first.identifier, github.sign(body.toString(), first))).ok).toBe(true);
    expect((await keys.verify(body, first.identifier, github.sign(body.toString(), first))).ok).toBe(true);
    expect(github.keyFetches).toBe(fetchesBefore + 1);

    const rotated = github.rotateKey();
    expect((await keys.verify(body, rotated.identifier, github.sign(body.toString(), rotated))).ok).toBe(true);
    expect(github.keyFetches).toBe(fetchesBefore + 2);

    const slow = new GithubSecretScanningKeys({ apiUrl: github.url, token: undefined, logger, minRefreshIntervalMs: 60_000 });
    expect((await slow.verify(body, first.identifier, github.sign(body.toString(), first))).ok).toBe(true);
    const afterFirstLoad = github.keyFetches;
    expect(await slow.verify(body, 'f'.repeat(64), github.sign(body.toString(), first))).toEqual({ ok: false, reason: 'unknown public key identifier' });
    expect(await slow.verify(body, 'e'.repeat(64), github.sign(body.toString(), first))).toMatchObject({ ok: false });
    expect(github.keyFetches).toBe(afterFirstLoad);
  });

  it('answers "unavailable", not "unknown key", while the list cannot be loaded, and retries soon after', async () => {
    const keys = new GithubSecretScanningKeys({ apiUrl: github.url, token: undefined, logger, failureRetryMs: 300 });
    const signer = github.keys[github.keys.length - 1]!;
    const signature = github.sign(body.toString(), signer);
    github.failKeyFetches(1);
    const before = github.keyFetches;
    await expect(keys.verify(body, signer.identifier, signature)).rejects.toBeInstanceOf(GithubKeysUnavailableError);
    // Within the failure window: still unavailable, and GitHub is not asked again.
    await expect(keys.verify(body, signer.identifier, signature)).rejects.toBeInstanceOf(GithubKeysUnavailableError);
    expect(github.keyFetches).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await keys.verify(body, signer.identifier, signature)).toEqual({ ok: true, keyIdentifier: signer.identifier });
    expect(github.keyFetches).toBe(before + 2);
  });
});
