import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: 'info' }, {}, destination) };
}

describe('the logger', () => {
  it('writes an error wherever a line carries it, as Temporal logs a failed activity: message, type, stack and cause, never {}', () => {
    const { lines, logger } = capture();
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:443');
    const failure = ApplicationFailure.create({ message: 'the leak scan could not reach GitHub', type: 'GitHubUnavailable', cause });
    // What src/temporal/runtime.ts passes on for the SDK's "Activity failed" (meta: { error, durationMs }).
    logger.warn({ temporal: { error: failure, durationMs: 12 } }, 'Activity failed');
    logger.error({ error: new TypeError('fetch failed') }, 'leak scan failed');
    logger.error({ err: new RangeError('out of range') }, 'by pino’s own key');

    const [activity, direct, own] = lines as [{ temporal: { error: Record<string, unknown>; durationMs: number } }, { error: Record<string, unknown> }, { err: Record<string, unknown> }];
    expect(activity.temporal.durationMs).toBe(12);
    expect(activity.temporal.error).toMatchObject({ type: 'ApplicationFailure', message: expect.stringContaining('the leak scan could not reach GitHub'), stack: expect.stringContaining('logger.test.ts') });
    expect(JSON.stringify(activity.temporal.error)).toContain('ECONNREFUSED');
    expect(direct.error).toMatchObject({ type: 'TypeError', message: 'fetch failed' });
    expect(own.err).toMatchObject({ type: 'RangeError', message: 'out of range' });
  });

  it('leaves other values and credentials as they were', () => {
    const { lines, logger } = capture();
    logger.info({ domain: { name: 'example.com', years: [1, 2] }, request: { token: 'svc_test_secret' }, when: new Date(0) }, 'plain');
    expect(lines[0]).toMatchObject({ domain: { name: 'example.com', years: [1, 2] }, request: { token: '[redacted]' }, when: '1970-01-01T00:00:00.000Z' });
  });
});
