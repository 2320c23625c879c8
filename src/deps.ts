import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createPool, type Db } from './db/pool.js';
import { createRedis, redisReady } from './redis.js';
import { createTemporal, type Temporal } from './temporal/client.js';
import { loadDevIdentityProvider, type DevIdentityProvider } from './auth/dev/devIdentityProvider.js';
import { resolveKeyHashSecret } from './auth/dev/keyHashSecret.js';
import { resolvePayloadKeyring, type PayloadKeyring } from './temporal/payloadKeys.js';
import { ApiKeyVerifier } from './auth/apiKeyVerifier.js';
import { ApiKeyMisses } from './auth/apiKeyMisses.js';
import { createSessionVerifier, type SessionVerifier } from './auth/sessionVerifier.js';
import { SessionPrincipals, sessionLoader } from './auth/sessionPrincipals.js';
import { OrgsOfUser } from './services/orgs/orgsOfUser.js';
import { createRateLimiter, type RateLimiter } from './rateLimit/limiter.js';
import { createRegistrars, type Registrars } from './registrar/registrars.js';
import type Stripe from 'stripe';
import { createStripe } from './payments/stripe.js';
import { AvailabilityService } from './services/domains/availability.js';
import { createDnsProviders, type DnsProviders } from './dnsProvider/index.js';
import { processMetrics, type Metrics } from './metrics/registry.js';
import { observeState } from './metrics/collectors.js';
import { activeTracing } from './telemetry/tracing.js';
import { traceRedisCommands } from './telemetry/spans.js';

/** Everything the api and the worker share, created once per process. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  temporal: Temporal;
  keyHashSecret: string;
  /** Encrypts Temporal payloads and stored workflow inputs. */
  payloadKeys: PayloadKeyring;
  /** Present when the development identity provider is on (no `AUTH_JWKS_URL`, not production). */
  devIdentity: DevIdentityProvider | undefined;
  apiKeys: ApiKeyVerifier;
  /** Recent unknown-key answers, forgotten when a key is created (src/auth/apiKeyMisses.ts). */
  keyMisses: ApiKeyMisses;
  verifySession: SessionVerifier;
  /** `GET /me`'s organisations per user, reused for at most 1.5 s (src/services/orgs/orgsOfUser.ts). */
  orgsOfUser: OrgsOfUser;
  /** Verified session tokens and their users, reused for at most 1.5 s (src/auth/sessionPrincipals.ts). */
  sessions: SessionPrincipals;
  rateLimiter: RateLimiter;
  registrars: Registrars;
  /** The Stripe library for live top-ups; absent when STRIPE_API_KEY is unset (live top-ups refused). */
  stripe: Stripe | undefined;
  availability: AvailabilityService;
  /** PowerDNS for live mode (503 when unconfigured), the synthetic provider for test mode. */
  dnsProviders: DnsProviders;
  /** The Redis connection in subscriber mode (pub/sub needs one of its own). */
  subscriber: Redis;
  /** This process's Prometheus metrics (`processMetrics()`), served at `/metrics` when METRICS_PORT is set. */
  metrics: Metrics;
}

export async function createDeps(config: Config, logger: Logger): Promise<AppDeps> {
  const redis = createRedis(config.redisUrl, logger);
  // Subscribing waits for a connection instead of failing: it must survive Redis restarts.
  const subscriber = createRedis(config.redisUrl, logger, { enableOfflineQueue: true, maxRetriesPerRequest: null });
  if (activeTracing()) traceRedisCommands(redis);
  await redisReady(redis, 2_000);
  const db = createPool(config.databaseUrl, logger);
  const keyHashSecret = await resolveKeyHashSecret(config);
  const payloadKeys = await resolvePayloadKeyring(config);
  const devIdentity = config.auth ? undefined : await loadDevIdentityProvider(config.dataDir);
  const apiKeys = new ApiKeyVerifier({ db, redis, subscriber, keyHashSecret, logger });
  // Bounded wait: with Redis down the subscription completes once it is back; the cache TTL covers the gap.
  const keyMisses = new ApiKeyMisses({ redis, subscriber, logger });
  const subscribed = Promise.all([apiKeys.start(), keyMisses.start()]).then(
    () => true,
    (err: unknown) => logger.warn({ err }, 'API key invalidation subscription failed'),
  );
  await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  const registrars = createRegistrars({ config, db, redis });
  const verifySession = createSessionVerifier(config, devIdentity);
  const metrics = processMetrics();
  observeState(metrics, { db, redis, subscriber });
  return {
    config,
    logger,
    db,
    registrars,
    stripe: createStripe(config),
    availability: new AvailabilityService(registrars, {
      redis,
      logger,
      checksPerMinute: config.registrarCheckPerMinute,
      upstreamId: createHash('sha256').update(`${config.registrar?.url ?? ''}|${config.registrar?.account ?? ''}`).digest('hex').slice(0, 16),
    }),
    dnsProviders: createDnsProviders(config),
    redis,
    subscriber,
    temporal: createTemporal(config, payloadKeys),
    keyHashSecret,
    payloadKeys,
    devIdentity,
    apiKeys,
    keyMisses,
    verifySession,
    sessions: new SessionPrincipals(sessionLoader(db, verifySession)),
    orgsOfUser: new OrgsOfUser(db),
    rateLimiter: createRateLimiter({ redis, logger }),
    metrics,
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  await deps.apiKeys.close();
  // The subscriber queues commands while Redis is away, so a QUIT could wait forever: just disconnect.
  deps.subscriber.disconnect();
  await Promise.allSettled([deps.db.end(), deps.temporal.connection.close(), deps.redis.quit()]);
  deps.redis.disconnect();
}
