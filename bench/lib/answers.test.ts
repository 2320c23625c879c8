import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Answers } from './answers.js';

describe('the answers a kind of request was given', () => {
  it('counts refusals by status and error code, and 5xx apart', () => {
    const answers = new Answers();
    answers.count(200, 3);
    answers.count(429, 1, JSON.stringify({ detail: 'slow down', code: 'RATE_LIMITED' }));
    answers.count(429, 1, JSON.stringify({ detail: 'slow down', code: 'RATE_LIMITED' }));
    answers.count(503, 2, 'not json');
    expect(answers.describe()).toBe('200 ×1, 429 RATE_LIMITED ×2, 503 ×1');
    expect([answers.answered, answers.serverErrors]).toEqual([4, 1]);
  });

  it('keeps its counts through what another process prints of them', () => {
    const answers = new Answers();
    answers.count(422, 10, JSON.stringify({ code: 'ZONE_FILE_INVALID' }));
    answers.noAnswer = 2;
    const printed = JSON.parse(JSON.stringify(answers)) as ReturnType<Answers['toJSON']>;
    expect(Answers.from(printed).describe()).toBe('422 ZONE_FILE_INVALID ×1, no answer ×2');
    expect(printed.ms).toMatchObject({ p50: 10, count: 1 });
  });

  describe('sending', () => {
    // Answers /fast at once and never answers anything else.
    const server = http.createServer((req, res) => {
      if (req.url === '/fast') res.writeHead(201).end('{}');
    });
    let base = '';
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('tells a request that timed out from one the bench cut when its time was up', async () => {
      const answers = new Answers();
      expect((await answers.send(`${base}/fast`, {}, { timeoutMs: 5_000 }))?.status).toBe(201);
      expect(await answers.send(`${base}/never`, {}, { timeoutMs: 50 })).toBeUndefined();
      const stop = new AbortController();
      const cut = answers.send(`${base}/never`, {}, { timeoutMs: 5_000, stop: stop.signal });
      stop.abort();
      expect(await cut).toBeUndefined();
      expect(answers.describe()).toBe('201 ×1, no answer ×1, cut at the end ×1');
      expect(answers.ms).toHaveLength(1);
    });
  });
});
