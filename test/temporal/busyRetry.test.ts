/**
 * A worker's start-up calls (schedules, search attributes, the dispatcher) against a Temporal that
 * answers late: the real frontend behind a proxy that holds its replies past the call's deadline, so
 * the errors are the ones the SDK raises, not made up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { HoldingProxy } from '../support/holdingProxy.js';
import { testConfig } from '../support/testApp.js';
import { ensureSchedules } from '../../src/worker/schedules.js';
import { isTemporalBusy, retryWhileTemporalBusy } from '../../src/temporal/busyRetry.js';
import type { Config } from '../../src/config.js';

/** How long one try may take here: the proxy holds replies past it, as a loaded or frozen frontend would. */
const TRY_DEADLINE_MS = 1_000;

let proxy: HoldingProxy;
let connection: Connection;
let client: Client;
let config: Config;
const created: string[] = [];

beforeAll(async () => {
  config = await testConfig();
  const [host, port] = inject('temporalAddress').split(':');
  proxy = await HoldingProxy.start({ host: host!, port: Number(port) });
  connection = await Connection.connect({ address: `127.0.0.1:${proxy.port}` });
  client = new Client({ connection, namespace: config.temporal.namespace });
});
afterEach(() => proxy.release());
afterAll(async () => {
  proxy?.release();
  for (const id of created) await client?.schedule.getHandle(id).delete().catch(() => undefined);
  await connection?.close();
  await proxy?.close();
});

/** Warnings as the logger receives them; `onWarn` runs as each arrives. */
function warnings(onWarn: () => void = () => undefined) {
  const seen: { attempt: number; delayMs: number; message: string; err: unknown }[] = [];
  return {
    seen,
    logger: {
      warn(fields: { attempt: number; delayMs: number; err: unknown }, message: string) {
        seen.push({ ...fields, message });
        onWarn();
      },
    } as never,
  };
}

const ensure = () => ensureSchedules(client, config);

const retrying = (log: ReturnType<typeof warnings>) => ({ logger: log.logger, connection, tryDeadlineMs: TRY_DEADLINE_MS });

describe('start-up calls while Temporal is busy', () => {
  it('a try Temporal does not answer in time is made again once it answers, and its result returned', async () => {
    proxy.hold();
    const log = warnings(() => proxy.release());
    const ensured = await retryWhileTemporalBusy('creating schedules', ensure, { ...retrying(log), firstDelayMs: 50 });
    created.push(...ensured);

    expect(ensured).toHaveLength(6);
    expect(log.seen).toHaveLength(1);
    expect(log.seen[0]).toMatchObject({ attempt: 1, delayMs: 50, message: 'creating schedules: Temporal is busy; trying again' });
    expect(isTemporalBusy(log.seen[0]!.err)).toBe(true);
    // What the retry made is there, on the real server.
    for (const id of ensured) expect((await client.schedule.getHandle(id).describe()).scheduleId).toBe(id);
  });

  it('gives up with the busy error after its attempts when Temporal stays busy', async () => {
    proxy.hold();
    const log = warnings();
    const failure = await retryWhileTemporalBusy('creating schedules', ensure, { ...retrying(log), attempts: 3, firstDelayMs: 20 }).catch(
      (err: unknown) => err,
    );
    expect(isTemporalBusy(failure)).toBe(true);
    expect(log.seen.map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
      { attempt: 1, delayMs: 20 },
      { attempt: 2, delayMs: 40 },
    ]);
  });

  it('a refusal is not tried again', async () => {
    const log = warnings();
    const missing = () => client.schedule.getHandle(`missing:${config.temporal.taskQueue}`).describe();
    await expect(retryWhileTemporalBusy('describing', missing, { ...retrying(log), firstDelayMs: 20 })).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect(log.seen).toEqual([]);
  });
});
