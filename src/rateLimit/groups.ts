/**
 * Rate-limit groups and plans (docs/api-guide.md, Rate limits).
 * `availability`: single availability and search; `bulk`: bulk availability (its own pool);
 * `read`: other GETs; `write`: POST, PATCH, DELETE.
 */
export type RateLimitGroup = 'availability' | 'read' | 'write' | 'bulk';
import type { Plan } from '../auth/organizations.js';

export type { Plan };

export interface GroupLimits {
  /** Requests allowed per fixed minute window; what `X-RateLimit-Limit` reports. */
  perMinute: number;
  /** Requests allowed per fixed one-second window (the burst). */
  perSecond: number;
}

export const RATE_LIMIT_GROUPS: Readonly<Record<RateLimitGroup, GroupLimits>> = {
  availability: { perMinute: 600, perSecond: 60 },
  read: { perMinute: 300, perSecond: 30 },
  write: { perMinute: 60, perSecond: 10 },
  bulk: { perMinute: 10, perSecond: 2 },
};

/** The plan scales both the per-minute limit and the burst. */
export const PLAN_MULTIPLIERS: Readonly<Record<Plan, number>> = { free: 1, pro: 5, enterprise: 20 };

/** No block, however widened by early retries, lasts longer than this (docs/api-guide.md, Rate limits: 15 minutes). */
export const MAX_BLOCK_SECONDS = 900;

/** Ceiling on the stored back-off multiplier; 1024 × a 1 s base already exceeds MAX_BLOCK_SECONDS. */
export const MAX_BACKOFF_MULTIPLIER = 1024;

/** `RATE_LIMIT_SCALE` times the base, never below one request (a benchmark sets a scale that never binds). */
function scaled(count: number, scale: number): number {
  return Math.max(1, Math.floor(count * scale));
}

/** A per-organisation budget (events a minute, deliveries waiting, event streams): its free-plan size times the plan, times `scale`. */
export function planScaledCount(count: number, plan: Plan, scale = 1): number {
  return scaled(count * PLAN_MULTIPLIERS[plan], scale);
}

/** Limits `base` on the free plan, times the plan, times `RATE_LIMIT_SCALE` (default 1): how every per-plan budget grows. */
export function planScaled(base: GroupLimits, plan: Plan, scale = 1): GroupLimits {
  return { perMinute: planScaledCount(base.perMinute, plan, scale), perSecond: planScaledCount(base.perSecond, plan, scale) };
}

/** A key's or session's pool: the group's limits times the plan, times `RATE_LIMIT_SCALE` (default 1). */
export function limitsFor(group: RateLimitGroup, plan: Plan, scale = 1): GroupLimits {
  return planScaled(RATE_LIMIT_GROUPS[group], plan, scale);
}

/** All of one user's keys and sessions together may use this many times one key's pool. */
export const USER_CEILING_FACTOR = 3;

export function userCeilingFor(group: RateLimitGroup, plan: Plan, scale = 1): GroupLimits {
  const one = limitsFor(group, plan, scale);
  return { perMinute: one.perMinute * USER_CEILING_FACTOR, perSecond: one.perSecond * USER_CEILING_FACTOR };
}

/**
 * Per client address: `auth_failure` counts requests whose credential failed (past it they are
 * answered 429 instead of 401; a credential that verifies is never counted or refused here);
 * `public` counts requests to routes without a token (health, docs, webhooks), ahead of any work.
 */
export type AddressPool = 'auth_failure' | 'public';

export const ADDRESS_LIMITS: Readonly<Record<AddressPool, GroupLimits>> = {
  auth_failure: { perMinute: 60, perSecond: 10 },
  public: { perMinute: 300, perSecond: 30 },
};

/**
 * Live availability names one user may have checked at the registrar per minute, all keys and
 * sessions together (a bulk call of N names costs N), times the plan. The burst equals the minute
 * so one full 500-name bulk call fits.
 */
export const REGISTRAR_BUDGET_PER_MINUTE = 500;

export function registrarBudgetFor(plan: Plan, scale = 1): GroupLimits {
  const perMinute = scaled(REGISTRAR_BUDGET_PER_MINUTE * PLAN_MULTIPLIERS[plan], scale);
  return { perMinute, perSecond: perMinute };
}

/**
 * ACME-DNS updates one organisation may send in one mode, all its registrations together, on the free
 * plan (times the plan): enough to renew a hundred certificates in a few minutes (docs/operations.md,
 * ACME-DNS budgets). The registrations one person made, in every organisation, share USER_CEILING_FACTOR times it.
 */
export const ACME_DNS_UPDATES: GroupLimits = { perMinute: 60, perSecond: 10 };
