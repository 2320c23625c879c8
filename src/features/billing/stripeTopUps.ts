import type Stripe from 'stripe';
import { withTransaction, type Db } from '../../db/pool.js';
import { actorOf, insertAuditEvent } from '../../audit/auditEvents.js';
import { insertTopUp, lockTopUpForPayment, updateTopUp, type TopUp } from './topUps.repository.js';
import type { Principal } from '../../auth/principal.js';
import type { Logger } from '../../logger.js';
import { newId } from '../../ids.js';
import { ServiceUnavailableError } from '../../errors.js';
import { topUpWithin } from './ledger.js';
import { modeOf } from '../../db/modeScope.js';

export interface StartTopUpProps {
  db: Db;
  stripe: Stripe;
  principal: Principal;
  orgId: string;
  /** Minor units of USD. */
  amount: number;
  /** Where Checkout sends the payer back; `{TOP_UP_ID}` is replaced by the top-up's id. */
  returnUrl: string;
  log: Logger;
}

/**
 * A live top-up: a `pending` row, then a Stripe Checkout Session for it (mode `payment`, the amount in
 * USD, org and top-up id in its metadata). Nothing is credited here: the signed webhook does that
 * (settleStripeEvent). The top-up id is Stripe's idempotency key, so a retried call never opens two
 * sessions. Stripe unreachable or refusing: the row ends `failed` and the answer is 503.
 */
export async function startStripeTopUp(props: StartTopUpProps): Promise<TopUp> {
  const mode = modeOf(props.principal.livemode);
  const actor = actorOf(props.principal);
  const topUp = await insertTopUp(props.db, mode, { id: newId('tu'), orgId: props.orgId, amount: props.amount, ...actor });
  const back = props.returnUrl.replaceAll('{TOP_UP_ID}', topUp.id);
  let session: Stripe.Checkout.Session;
  try {
    session = await props.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{ price_data: { currency: 'usd', unit_amount: props.amount, product_data: { name: 'Domain Service balance top-up' } }, quantity: 1 }],
        success_url: `${back}${back.includes('?') ? '&' : '?'}checkout=success`,
        cancel_url: `${back}${back.includes('?') ? '&' : '?'}checkout=cancelled`,
        client_reference_id: topUp.id,
        metadata: { top_up_id: topUp.id, org_id: props.orgId },
        payment_intent_data: { metadata: { top_up_id: topUp.id, org_id: props.orgId } },
      },
      { idempotencyKey: `top-up:${topUp.id}` },
    );
  } catch (err) {
    props.log.error({ err, topUpId: topUp.id }, 'Stripe refused or could not be reached for a Checkout Session');
    await updateTopUp(props.db, mode, topUp.id, { status: 'failed', completedAt: new Date() });
    throw new ServiceUnavailableError('PAYMENT_PROVIDER_UNAVAILABLE', 'The payment provider could not open a checkout; nothing was charged. Retry later.', 30);
  }
  return updateTopUp(props.db, mode, topUp.id, { stripeSessionId: session.id, checkoutUrl: session.url ?? null });
}

/** The Checkout Session events that move a top-up; anything else is acknowledged and ignored. */
const CREDITING = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const ENDING: Record<string, 'failed' | 'expired'> = {
  'checkout.session.async_payment_failed': 'failed',
  'checkout.session.expired': 'expired',
};

export type StripeEventOutcome = 'credited' | 'already_credited' | 'marked_failed' | 'marked_expired' | 'ignored' | 'ignored_other_mode';

/**
 * Applies one verified Stripe event. Stripe delivers at least once and in any order, so every event
 * is applied under the top-up's row lock and keyed on the top-up: the balance is credited once, when
 * a paid session first arrives (from `pending`, or from `failed`/`expired` since money that was taken
 * must land); a late `expired` or `failed` never undoes a credit; replays change nothing.
 *
 * `stripeLivemode` is the mode of STRIPE_API_KEY, which opened every session this deployment credits.
 * An event of the other mode (a test payment reaching a live deployment through a shared or mixed-up
 * signing secret, or the reverse) is about no session of ours and no money we are owed: it changes
 * nothing, whatever it names. It is acknowledged, not refused, because its `livemode` never changes:
 * Stripe's retries for three days could not succeed; the error log is where the operator sees it.
 */
export async function settleStripeEvent(props: { db: Db; event: Stripe.Event; stripeLivemode: boolean; log: Logger }): Promise<StripeEventOutcome> {
  const { event } = props;
  if (!CREDITING.has(event.type) && !ENDING[event.type]) return 'ignored';
  if (event.livemode !== props.stripeLivemode) {
    props.log.error(
      { eventId: event.id, type: event.type, eventLivemode: event.livemode, keyLivemode: props.stripeLivemode },
      "Stripe event from the other mode than STRIPE_API_KEY's; nothing credited (is STRIPE_WEBHOOK_SECRET the secret of an endpoint in the key's mode?)",
    );
    return 'ignored_other_mode';
  }
  const session = event.data.object as Stripe.Checkout.Session;
  const topUpId = session.metadata?.top_up_id ?? session.client_reference_id;
  if (!topUpId) return 'ignored';
  return withTransaction(props.db, async (tx) => {
    const topUp = await lockTopUpForPayment(tx, topUpId);
    if (!topUp || topUp.stripeSessionId !== session.id) {
      props.log.warn({ topUpId, sessionId: session.id, eventId: event.id }, 'Stripe event for an unknown top-up or session; ignored');
      return 'ignored';
    }
    const mode = modeOf(topUp.livemode);
    if (topUp.status === 'succeeded') return 'already_credited';
    const ending = ENDING[event.type];
    if (ending) {
      if (topUp.status !== 'pending') return 'ignored';
      await updateTopUp(tx, mode, topUp.id, { status: ending, checkoutUrl: null, completedAt: new Date() });
      return ending === 'failed' ? 'marked_failed' : 'marked_expired';
    }
    // `completed` with a payment still on its way (a bank debit) is credited by async_payment_succeeded.
    if (session.payment_status !== 'paid') return 'ignored';
    if (session.amount_total !== null && session.amount_total !== undefined && session.amount_total !== topUp.amount) {
      props.log.error({ topUpId, amountTotal: session.amount_total, amount: topUp.amount }, 'Stripe session paid another amount than the top-up; not credited');
      return 'ignored';
    }
    const entry = await topUpWithin(tx, {
      orgId: topUp.orgId,
      livemode: topUp.livemode,
      amount: topUp.amount,
      actor: { actorUserId: topUp.actorUserId, actorKeyId: topUp.actorKeyId },
      requestId: null,
      description: `Top-up paid through Stripe (${topUp.id})`,
    });
    await updateTopUp(tx, mode, topUp.id, { status: 'succeeded', ledgerEntryId: entry.id, checkoutUrl: null, completedAt: new Date() });
    await insertAuditEvent(tx, {
      action: 'billing.stripe_top_up',
      actorUserId: topUp.actorUserId,
      actorKeyId: topUp.actorKeyId,
      orgId: topUp.orgId,
      targetType: 'organization',
      targetId: topUp.orgId,
      livemode: topUp.livemode,
      data: { top_up_id: topUp.id, amount: topUp.amount, stripe_session_id: session.id, stripe_event_id: event.id },
      requestId: null,
    });
    return 'credited';
  });
}
