import Stripe from 'stripe';
import type { Config } from '../../config.js';

/**
 * The official Stripe library, configured from STRIPE_API_KEY; STRIPE_API_BASE sends it elsewhere
 * (Stripe's own `stripe-mock` in tests). Undefined when Stripe is not configured.
 */
export function createStripe(config: Pick<Config, 'stripe'>): Stripe | undefined {
  if (!config.stripe) return undefined;
  const base = config.stripe.apiBase ? new URL(config.stripe.apiBase) : undefined;
  return new Stripe(config.stripe.apiKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(base
      ? { host: base.hostname, port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)), protocol: base.protocol === 'https:' ? 'https' : 'http' }
      : {}),
  });
}

/**
 * Whether the key acts in Stripe's live mode (`sk_live_…`, `rk_live_…`). Its events carry the same
 * `livemode`; anything else (test keys, stripe-mock's) is test mode.
 */
export const stripeKeyIsLive = (apiKey: string): boolean => /^(sk|rk)_live_/.test(apiKey);
