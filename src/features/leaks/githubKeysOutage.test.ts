/**
 * GitHub's key list failing to load must not turn real alerts away: they answer 503 with
 * Retry-After (GitHub retries) instead of 401 (GitHub drops them), and the failure is not
 * remembered for long: once GitHub answers again, so do we.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startFakeGithub, type FakeGithub } from '../../../test/support/fakeGithub.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';

let app: TestApp;
let github: FakeGithub;

beforeAll(async () => {
  github = await startFakeGithub();
  app = await startTestApp({ env: { GITHUB_API_URL: github.url } });
});
afterAll(async () => {
  await app?.close();
  await github?.close();
});

function postSignedAlert(): Promise<Response> {
  const body = JSON.stringify([{ token: 'svc_live_notOurs', type: 'domain_service_api_key', url: 'https://github.com/a/b/blob/main/x', source: 'content' }]);
  const signer = github.keys[github.keys.length - 1]!;
  return app.fetch('/api/v1/secret-scanning/github', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'github-public-key-identifier': signer.identifier,
      'github-public-key-signature': github.sign(body, signer),
    },
    body,
  });
}

describe('GitHub public keys unavailable', () => {
  it('answers genuine alerts 503 with Retry-After while the keys cannot be loaded, then 200 soon after', async () => {
    github.failKeyFetches(1);
    for (let i = 0; i < 2; i += 1) {
      const res = await postSignedAlert();
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await readJson<MessageErrorBody>(res)).code).toBe('UPSTREAM_UNAVAILABLE');
    }
    // The failure is remembered for 5 s (githubKeys.ts), well inside GitHub's retry delay.
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    const res = await postSignedAlert();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([expect.objectContaining({ label: 'false_positive' })]);
  });
});
