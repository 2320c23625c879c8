import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createPool, type Db } from './db/pool.js';
import { createRedis, redisReady } from './redis.js';
import { createTemporal, type Temporal } from './temporal/client.js';
import { loadDevIdentityProvider, type DevIdentityProvider } from './auth/dev/devIdentityProvider.js';
import { resolveKeyHashSecret } from './auth/dev/keyHashSecret.js';

/** Everything the api and the worker share, created once per process. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  temporal: Temporal;
  keyHashSecret: string;
  /** Present when the development identity provider is on (no `AUTH_JWKS_URL`, not production). */
  devIdentity: DevIdentityProvider | undefined;
}

export async function createDeps(config: Config, logger: Logger): Promise<AppDeps> {
  const redis = createRedis(config.redisUrl, logger);
  await redisReady(redis, 2_000);
  return {
    config,
    logger,
    db: createPool(config.databaseUrl, logger),
    redis,
    temporal: createTemporal(config),
    keyHashSecret: await resolveKeyHashSecret(config),
    devIdentity: config.auth ? undefined : await loadDevIdentityProvider(config.dataDir),
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  await Promise.allSettled([deps.db.end(), deps.temporal.connection.close(), deps.redis.quit()]);
  deps.redis.disconnect();
}
