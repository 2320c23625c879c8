import type Stripe from 'stripe';
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { AppContext } from '../../http/context.js';
import type { BillingRouteDeps } from './billing.routes.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { settleStripeEvent } from './stripeTopUps.js';
import { stripeKeyIsLive } from './stripe.js';

/** 400: the `Stripe-Signature` header is missing, stale, or does not sign this body with our secret. */
class StripeSignatureError extends ApiError {
  constructor(detail: string) {
    super('INVALID_SIGNATURE', detail, { status: 400 });
  }
}

const StripeEventBody = z
  .looseObject({ id: z.string(), type: z.string(), data: z.looseObject({ object: z.looseObject({}) }) })
  .meta({
    id: 'StripeEvent',
    example: { id: 'evt_1QExample', type: 'checkout.session.completed', data: { object: { id: 'cs_test_a1Example', payment_status: 'paid' } } },
  });

const Received = z.object({ received: z.literal(true), outcome: z.string() }).meta({ id: 'StripeEventReceived' });

export type StripeWebhookRouteDeps = Pick<BillingRouteDeps, 'db' | 'config' | 'stripe'>;

/** Stripe's webhook: the signed events that settle live top-ups (src/features/billing/stripeTopUps.ts). */
export function stripeWebhookRoutes(deps: StripeWebhookRouteDeps) {
  // The event as verified, for the handler: verifyRequest runs on the raw body before validation.
  const verified = new WeakMap<AppContext, Stripe.Event>();
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/billing/stripe/webhook',
      operationId: 'receiveStripeEvent',
      summary: "Stripe's Checkout events: a paid session credits its live top-up, once",
      description:
        'Called by Stripe, not by clients: no bearer token; the `Stripe-Signature` header is checked against ' +
        '`STRIPE_WEBHOOK_SECRET` on the raw body before anything else. `checkout.session.completed` (paid) and ' +
        '`checkout.session.async_payment_succeeded` credit the balance exactly once, however often and in whatever order ' +
        'they arrive; `checkout.session.async_payment_failed` and `checkout.session.expired` end a pending top-up. ' +
        'Other events are acknowledged and ignored, and so is an event whose `livemode` is not the mode of ' +
        "`STRIPE_API_KEY` (outcome `ignored_other_mode`): it credits nothing. 404 when Stripe is not configured.",
      tags: ['billing'],
      scope: 'public',
      request: { body: StripeEventBody },
      verifyRequest: (ctx) => {
        if (!deps.stripe || !deps.config.stripe) throw new NotFoundError('Stripe is not configured');
        const signature = ctx.get('stripe-signature');
        if (!signature) throw new StripeSignatureError('The Stripe-Signature header is required');
        try {
          verified.set(ctx, deps.stripe.webhooks.constructEvent(ctx.state.rawBody ?? Buffer.alloc(0), signature, deps.config.stripe.webhookSecret));
        } catch (err) {
          ctx.state.log.warn({ err: (err as Error).message }, 'refused a Stripe webhook with a bad signature');
          throw new StripeSignatureError('The Stripe-Signature header does not sign this body');
        }
        return Promise.resolve();
      },
      responses: { 200: { description: 'Received; `outcome` says what it changed', schema: Received } },
      errors: { 400: 'Signature missing, stale or not matching the body (`INVALID_SIGNATURE`); nothing changes', 404: 'Stripe is not configured' },
      handler: async (ctx) => {
        const event = verified.get(ctx)!;
        const stripeLivemode = stripeKeyIsLive(deps.config.stripe!.apiKey);
        const outcome = await settleStripeEvent({ db: deps.db, event, stripeLivemode, log: ctx.state.log });
        ctx.state.log.info({ eventId: event.id, type: event.type, outcome }, 'Stripe event');
        ctx.body = { received: true, outcome };
      },
    }),
  ];
}
