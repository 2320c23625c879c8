import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Db } from './db/pool.js';
import type { Temporal } from './temporal/client.js';
import type { DevIdentityProvider } from './auth/dev/devIdentityProvider.js';
import type { PayloadKeyring } from './temporal/payloadKeys.js';
import type { ApiKeyVerifier } from './auth/apiKeyVerifier.js';
import type { ApiKeyMisses } from './auth/apiKeyMisses.js';
import type { SessionVerifier } from './auth/sessionVerifier.js';
import type { SessionPrincipals } from './auth/sessionPrincipals.js';
import type { RateLimiter } from './rateLimit/limiter.js';
import type { Registrars } from './registrar/registrars.js';
import type { Metrics } from './metrics/registry.js';
import type { RecentMemberships } from './auth/recentMemberships.js';

/**
 * The shared plumbing every process holds, created once per process (src/deps.ts). Shared plumbing
 * takes these; the features' own services are added in AppDeps (docs/architecture.md).
 */
export interface PlatformDeps {
  config: Config;
  logger: Logger;
  db: Db;
  /** Few connections whose commits do not wait for the disk: idempotency claims only (src/db/pool.ts). */
  claimsDb: Db;
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
  /** Verified session tokens and their users, reused for at most 1.5 s (src/auth/sessionPrincipals.ts). */
  sessions: SessionPrincipals;
  rateLimiter: RateLimiter;
  registrars: Registrars;
  /** The Redis connection in subscriber mode (pub/sub needs one of its own). */
  subscriber: Redis;
  /** Callers' memberships of organisations, reused for at most 1.5 s (src/auth/recentMemberships.ts). */
  memberships: RecentMemberships;
  /** This process's Prometheus metrics (`processMetrics()`), served at `/metrics` when METRICS_PORT is set. */
  metrics: Metrics;
}
