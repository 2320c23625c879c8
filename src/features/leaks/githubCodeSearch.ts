/**
 * GitHub's code search (`GET /search/code`, with text matches), one page at a time. Pages follow
 * the `Link` header; rate limits (403/429 with `retry-after`, or `x-ratelimit-remaining: 0` with
 * `x-ratelimit-reset`) come back as errors that say how long to wait.
 */
import { parseRetryAfter } from '../../upstream/network.js';

export interface CodeSearchItem {
  path: string;
  html_url: string;
  repository?: { full_name?: string };
  text_matches?: { fragment?: string }[];
}

export interface CodeSearchPage {
  items: CodeSearchItem[];
  /** The next page's URL (same origin as the API), or undefined on the last page. */
  nextUrl: string | undefined;
  /** Set when this answer spent the rate limit: wait this long before the next request. */
  pauseMs: number | undefined;
}

/** Wait `retryAfterMs`, then ask again. */
export class GithubRateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`GitHub rate limit reached; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = 'GithubRateLimitedError';
  }
}

/** An answer no retry changes (bad token, bad query). */
export class GithubRejectedError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`GitHub refused the code search (${status}): ${detail}`);
    this.name = 'GithubRejectedError';
  }
}

/** Secondary limits without a header: GitHub asks for at least a minute. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

export function codeSearchUrl(apiUrl: string, query: string, perPage: number, page = 1): string {
  const url = new URL('search/code', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  url.search = new URLSearchParams({ q: query, per_page: String(perPage), page: String(page) }).toString();
  return url.toString();
}

/** The `rel="next"` target of a Link header, only when it stays on the API's origin (the token goes with it). */
export function nextLink(linkHeader: string | null, apiUrl: string): string | undefined {
  if (!linkHeader) return undefined;
  for (const part of linkHeader.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (!match || !match[2]!.split(/\s+/).includes('next')) continue;
    const next = new URL(match[1]!, apiUrl);
    return next.origin === new URL(apiUrl).origin ? next.toString() : undefined;
  }
  return undefined;
}

function waitUntilResetMs(headers: Headers, now: number): number | undefined {
  const retryAfter = parseRetryAfter(headers, now);
  if (retryAfter !== undefined) return Math.max(1_000, retryAfter * 1_000);
  if (headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.max(1_000, reset * 1_000 - now);
  }
  return undefined;
}

export interface FetchCodeSearchPageProps {
  url: string;
  apiUrl: string;
  token: string | undefined;
  fetch?: typeof fetch;
  now?: () => number;
}

export async function fetchCodeSearchPage(props: FetchCodeSearchPageProps): Promise<CodeSearchPage> {
  const now = props.now ?? Date.now;
  const res = await (props.fetch ?? fetch)(props.url, {
    headers: {
      accept: 'application/vnd.github.text-match+json',
      'user-agent': 'domain-service-leak-scan',
      'x-github-api-version': '2022-11-28',
      ...(props.token ? { authorization: `Bearer ${props.token}` } : {}),
    },
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status === 403 || res.status === 429) {
    const wait = waitUntilResetMs(res.headers, now());
    await res.body?.cancel();
    if (wait !== undefined) throw new GithubRateLimitedError(wait);
    if (res.status === 429) throw new GithubRateLimitedError(DEFAULT_RATE_LIMIT_WAIT_MS);
    throw new GithubRejectedError(403, 'forbidden (check GITHUB_TOKEN)');
  }
  if (res.status >= 500) {
    await res.body?.cancel();
    throw new Error(`GitHub code search answered ${res.status}`);
  }
  if (!res.ok) throw new GithubRejectedError(res.status, (await res.text()).slice(0, 300));
  const body = (await res.json()) as { items?: CodeSearchItem[] };
  const nextUrl = nextLink(res.headers.get('link'), props.apiUrl);
  const pauseMs = res.headers.get('x-ratelimit-remaining') === '0' ? waitUntilResetMs(res.headers, now()) : undefined;
  return { items: body.items ?? [], nextUrl, pauseMs };
}

/** Our key shape, not glued to other word characters; the checksum is checked afterwards. */
const TOKEN_IN_TEXT = /(?<![0-9A-Za-z_])svc_(?:live|test)_[0-9A-Za-z]{38}(?![0-9A-Za-z])/g;

export function extractTokens(text: string): string[] {
  return [...text.matchAll(TOKEN_IN_TEXT)].map((match) => match[0]);
}
