import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Db } from '../db/pool.js';
import { loadPriceTable } from './tldPrices.js';
import { RedisAttemptCounter } from './attemptCounter.js';
import { createLiveRegistrar, createLiveRegistrarAccount, createTestRegistrar } from './index.js';
import type { PriceTable, Registrar, RegistrarAccount } from './port.js';
import { instrumentPort } from '../metrics/upstream.js';

const PRICE_TABLE_TTL_MS = 60_000;

export interface Registrars {
  /** The price list, read from the database at most once a minute. */
  prices(): Promise<PriceTable>;
  /** The registrar for a mode: DNSimple (or 503 when unconfigured) for live, the synthetic one for test. */
  forMode(livemode: boolean): Promise<Registrar>;
  /** The live registrar account as a whole (reconciliation). */
  liveAccount(): Promise<RegistrarAccount>;
}

export function createRegistrars(deps: { config: Config; db: Db; redis: Redis }): Registrars {
  let cached: { table: PriceTable; expiresAt: number } | undefined;
  const attempts = new RedisAttemptCounter(deps.redis);
  const prices = async () => {
    if (!cached || cached.expiresAt < Date.now()) {
      cached = { table: await loadPriceTable(deps.db), expiresAt: Date.now() + PRICE_TABLE_TTL_MS };
    }
    return cached.table;
  };
  return {
    prices,
    forMode: async (livemode) => {
      const table = await prices();
      const { timeoutMs, paidTimeoutMs } = deps.config.registrarTiming;
      const registrar = livemode ? createLiveRegistrar(deps.config.registrar, table, { timeoutMs, paidTimeoutMs }) : createTestRegistrar(table, attempts);
      return instrumentPort(registrar, { system: 'registrar', adapter: livemode ? 'dnsimple' : 'synthetic' });
    },
    liveAccount: async () => instrumentPort(createLiveRegistrarAccount(deps.config.registrar, await prices()), { system: 'registrar', adapter: 'dnsimple' }),
  };
}
