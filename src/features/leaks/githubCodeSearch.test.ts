import { describe, expect, it } from 'vitest';
import { checksumOf } from '../../auth/apiKeyFormat.js';
import { codeSearchUrl, extractTokens, fetchCodeSearchPage, GithubRateLimitedError, GithubRejectedError, nextLink } from './githubCodeSearch.js';

const API = 'https://api.github.test';

function answer(status: number, headers: Record<string, string> = {}, body: unknown = { items: [] }) {
  return (() => Promise.resolve(new Response(JSON.stringify(body), { status, headers }))) as unknown as typeof fetch;
}

describe('GitHub code search', () => {
  it('builds the first page URL and follows rel="next" only on the API origin', () => {
    expect(codeSearchUrl(API, 'svc_live_', 100)).toBe(`${API}/search/code?q=svc_live_&per_page=100&page=1`);
    const link = `<${API}/search/code?q=svc_live_&page=3>; rel="next", <${API}/search/code?q=svc_live_&page=10>; rel="last"`;
    expect(nextLink(link, API)).toBe(`${API}/search/code?q=svc_live_&page=3`);
    expect(nextLink(`<${API}/search/code?page=1>; rel="prev"`, API)).toBeUndefined();
    expect(nextLink('<https://evil.test/steal?page=2>; rel="next"', API)).toBeUndefined();
    expect(nextLink(null, API)).toBeUndefined();
  });

  it('finds key-shaped strings only where they stand alone', () => {
    const body = 'svc_live_' + 'a'.repeat(32);
    const token = body + checksumOf(body);
    expect(extractTokens(`KEY="${token}"\nother=${token}x x${token}`)).toEqual([token]);
    expect(extractTokens('svc_live_ and svc_test_short')).toEqual([]);
  });

  it('turns rate limits into a wait: retry-after, or the reset time when none is left', async () => {
    const now = () => 1_000_000_000_000;
    const call = (f: typeof fetch) => fetchCodeSearchPage({ url: `${API}/search/code`, apiUrl: API, token: 't', fetch: f, now });
    await expect(call(answer(403, { 'retry-after': '30' }))).rejects.toEqual(new GithubRateLimitedError(30_000));
    await expect(call(answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now() / 1000 + 120) }))).rejects.toEqual(
      new GithubRateLimitedError(120_000),
    );
    await expect(call(answer(429))).rejects.toEqual(new GithubRateLimitedError(60_000));
    await expect(call(answer(403))).rejects.toBeInstanceOf(GithubRejectedError);
    await expect(call(answer(422))).rejects.toBeInstanceOf(GithubRejectedError);
    await expect(call(answer(502))).rejects.not.toBeInstanceOf(GithubRejectedError);
    const spent = await call(
      answer(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now() / 1000 + 5), link: `<${API}/search/code?page=2>; rel="next"` }),
    );
    expect(spent).toEqual({ items: [], nextUrl: `${API}/search/code?page=2`, pauseMs: 5_000 });
  });
});
