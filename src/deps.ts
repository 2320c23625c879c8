import { createHash } from 'node:crypto';
import type { PlatformDeps } from './platformDeps.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createPool } from './db/pool.js';
import { createRedis, redisReady } from './redis.js';
import { createTemporal } from './temporal/client.js';
import { loadDevIdentityProvider } from './auth/dev/devIdentityProvider.js';
import { resolveKeyHashSecret } from './auth/dev/keyHashSecret.js';
import { resolvePayloadKeyring } from './temporal/payloadKeys.js';
import { ApiKeyVerifier } from './auth/apiKeyVerifier.js';
import { ApiKeyMisses } from './auth/apiKeyMisses.js';
import { createSessionVerifier } from './auth/sessionVerifier.js';
import { SessionPrincipals, sessionLoader } from './auth/sessionPrincipals.js';
import { OrgsOfUser } from './features/orgs/index.js';
import { RecentMemberships } from './auth/recentMemberships.js';
import { createRateLimiter } from './rateLimit/limiter.js';
import { createRegistrars } from './registrar/registrars.js';
import type Stripe from 'stripe';
import { createStripe } from './features/billing/index.js';
import { AvailabilityService, countUnfinishedOperations } from './features/domains/index.js';
import { createDnsProviders, type DnsProviders } from './features/dns/index.js';
import { processMetrics } from './metrics/registry.js';
import { observeState } from './metrics/collectors.js';
import { countUndispatchedEvents, EventStreamHub } from './features/webhooks/index.js';
import { activeTracing } from './telemetry/tracing.js';
import { traceRedisCommands } from './telemetry/spans.js';

/** Everything the api and the worker share, created once per process. */
export interface AppDeps extends PlatformDeps {
  /** `GET /me`'s organisations per user, reused for at most 1.5 s (src/features/orgs/orgsOfUser.ts). */
  orgsOfUser: OrgsOfUser;
  /** The Stripe library for live top-ups; absent when STRIPE_API_KEY is unset (live top-ups refused). */
  stripe: Stripe | undefined;
  availability: AvailabilityService;
  /** PowerDNS for live mode (503 when unconfigured), the synthetic provider for test mode. */
  dnsProviders: DnsProviders;
  /** Tells open event streams (`GET …/events/stream`) of new events; listens only while one is open. */
  eventStreams: EventStreamHub;
}

export async function createDeps(config: Config, logger: Logger): Promise<AppDeps> {
  const redis = createRedis(config.redisUrl, logger, { ...config.redisSentinel });
  // Subscribing waits for a connection instead of failing: it must survive Redis restarts.
  const subscriber = createRedis(config.redisUrl, logger, { ...config.redisSentinel, enableOfflineQueue: true, maxRetriesPerRequest: null });
  if (activeTracing()) traceRedisCommands(redis);
  await redisReady(redis, 2_000);
  const db = createPool(config.databaseUrl, logger);
  const claimsDb = createPool(config.databaseUrl, logger, 'claims');
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
  observeState(metrics, {
    db,
    claimsDb,
    redis,
    subscriber,
    unfinishedOperations: () => countUnfinishedOperations(db),
    undispatchedEvents: () => countUndispatchedEvents(db),
  });
  return {
    config,
    logger,
    db,
    claimsDb,
    registrars,
    stripe: createStripe(config),
    availability: new AvailabilityService(registrars, {
      redis,
      logger,
      checksPerMinute: config.registrarCheckPerMinute,
      upstreamId: createHash('sha256').update(`${config.registrar?.url ?? ''}|${config.registrar?.account ?? ''}`).digest('hex').slice(0, 16),
      reservedZone: config.acmeDns?.zone,
    }),
    dnsProviders: createDnsProviders(config),
    eventStreams: new EventStreamHub({ db, databaseUrl: config.databaseUrl, logger }),
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
    memberships: new RecentMemberships(db),
    rateLimiter: createRateLimiter({ redis, logger }),
    metrics,
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  await deps.eventStreams.close();
  await deps.apiKeys.close();
  // Tokens this process leased and did not spend go back to Redis ahead of the QUIT below.
  await deps.rateLimiter.giveBackLeases();
  // The subscriber queues commands while Redis is away, so a QUIT could wait forever: just disconnect.
  deps.subscriber.disconnect();
  await Promise.allSettled([deps.db.end(), deps.claimsDb.end(), deps.temporal.connection.close(), deps.redis.quit()]);
  deps.redis.disconnect();
}
