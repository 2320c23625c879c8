/**
 * The billing feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { findBalance } from './balances.repository.js';
export { billingRoutes } from './billing.routes.js';
export { capture, type PaidFor, release, RESERVATION_STATE_CONFLICT, type ReservationTerms, reserve } from './ledger.js';
export { creditByOperator } from './operatorCredit.js';
export { findReservation, listReservedOfFinishedOperations } from './reservations.repository.js';
export { setOrgSpendLimit } from './spendLimits.js';
export { createStripe } from './stripe.js';
export { stripeWebhookRoutes } from './stripeWebhook.routes.js';
