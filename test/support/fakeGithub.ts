import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CodeSearchItem } from '../../src/features/leaks/githubCodeSearch.js';

/**
 * GitHub as the service sees it, on loopback: the secret-scanning public keys
 * (`/meta/public_keys/secret_scanning`, signing bodies the way GitHub does: ECDSA P-256, SHA-256,
 * base64 DER) and code search (`/search/code` with text matches, paged through `Link` headers,
 * `x-ratelimit-*` headers, and a secondary rate limit on demand).
 */
export interface SigningKey {
  identifier: string;
  privateKey: KeyObject;
  publicPem: string;
}

export interface SearchRequest {
  page: number;
  perPage: number;
  query: string;
  accept: string | undefined;
  authorization: string | undefined;
  status: number;
  at: number;
}

export interface FakeGithub {
  url: string;
  /** Published keys, newest last; the last one is current. */
  keys: SigningKey[];
  keyFetches: number;
  searchRequests: SearchRequest[];
  /** Publishes a new current key (GitHub rotating its keys) and returns it. */
  rotateKey(): SigningKey;
  /** A P-256 key GitHub never published, for forged signatures. */
  unpublishedKey(): SigningKey;
  sign(body: string, key?: SigningKey): string;
  setSearchResults(items: CodeSearchItem[]): void;
  /** The next `count` requests for the public keys get 502 (GitHub having a bad minute). */
  failKeyFetches(count: number): void;
  /** The next request for `page` gets 403 with `retry-after` (a secondary rate limit). */
  rateLimitOnce(page: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    identifier: createHash('sha256').update(der).digest('hex'),
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export async function startFakeGithub(): Promise<FakeGithub> {
  let results: CodeSearchItem[] = [];
  const limited = new Map<number, number>();
  const state = { keyFetches: 0, keyFailures: 0 };
  const keys: SigningKey[] = [newKey()];
  const searchRequests: SearchRequest[] = [];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/meta/public_keys/secret_scanning') {
      state.keyFetches += 1;
      if (state.keyFailures > 0) {
        state.keyFailures -= 1;
        json(502, { message: 'Server Error' });
        return;
      }
      json(200, {
        public_keys: keys.map((key, index) => ({ key_identifier: key.identifier, key: key.publicPem, is_current: index === keys.length - 1 })),
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/search/code') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? '30'));
      const query = url.searchParams.get('q') ?? '';
      const record = (status: number) =>
        searchRequests.push({ page, perPage, query, accept: req.headers.accept, authorization: req.headers.authorization, status, at: Date.now() });
      const reset = String(Math.floor(Date.now() / 1000) + 60);
      const retryAfter = limited.get(page);
      if (retryAfter !== undefined) {
        limited.delete(page);
        record(403);
        json(
          403,
          { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
          { 'retry-after': String(retryAfter), 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
        );
        return;
      }
      record(200);
      const lastPage = Math.max(1, Math.ceil(results.length / perPage));
      const link = (p: number) => {
        const target = new URL(url.toString());
        target.searchParams.set('page', String(p));
        return `<${target.toString()}>`;
      };
      const links = [
        ...(page < lastPage ? [`${link(page + 1)}; rel="next"`, `${link(lastPage)}; rel="last"`] : []),
        ...(page > 1 ? [`${link(page - 1)}; rel="prev"`, `${link(1)}; rel="first"`] : []),
      ];
      json(
        200,
        { total_count: results.length, incomplete_results: false, items: results.slice((page - 1) * perPage, page * perPage) },
        { ...(links.length ? { link: links.join(', ') } : {}), 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '25', 'x-ratelimit-reset': reset },
      );
      return;
    }
    json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    keys,
    get keyFetches() {
      return state.keyFetches;
    },
    searchRequests,
    rotateKey() {
      const key = newKey();
      keys.push(key);
      return key;
    },
    unpublishedKey: newKey,
    sign(body, key = keys[keys.length - 1]!) {
      return sign('sha256', Buffer.from(body), { key: key.privateKey, dsaEncoding: 'der' }).toString('base64');
    },
    setSearchResults(items) {
      results = items;
    },
    failKeyFetches(count) {
      state.keyFailures = count;
    },
    rateLimitOnce(page, retryAfterSeconds) {
      limited.set(page, retryAfterSeconds);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
