import { ApiError, OperationTimeoutError } from '../../client/src/index.js';

/** Words for the codes a person meets in the dashboard; anything else shows the API's own `detail`. */
const EXPLANATIONS: Record<string, string> = {
  NOT_AUTHENTICATED: 'Your session has ended. Sign in again to continue.',
  INVALID_TOKEN: 'Your session has ended. Sign in again to continue.',
  TOKEN_EXPIRED: 'Your session has ended. Sign in again to continue.',
  NOT_SIGNED_IN: 'Your session has ended. Sign in again to continue.',
  CSRF_FAILED: 'This page is out of date with your session. Reload the page and try again.',
  NOT_ORG_MEMBER: 'You are not a member of this organisation (any more).',
  INSUFFICIENT_SCOPE: 'Your role does not allow this action.',
  FORBIDDEN: 'Your role in this organisation does not allow this action.',
  RATE_LIMITED: 'Too many requests in a short time. Wait a moment and try again.',
  PAYMENT_REQUIRED_FOR_LIVE_TOP_UP:
    'Card payments are not set up on this service, so live funds cannot be added here: an operator credits live balances for you. Turn on "Test data" to add free test funds.',
  PRICE_EXCEEDS_MAX: 'The price is higher than the most you chose to pay, so nothing was charged. Raise the max price or leave it empty.',
  LAST_OWNER: 'An organisation needs at least one owner: make someone else an owner first.',
  UPSTREAM_UNAVAILABLE: 'The registrar is not answering right now. Nothing was charged; try again in a minute.',
  DNS_PROVIDER_UNAVAILABLE: 'The DNS provider did not accept the change, so nothing was changed.',
  WORKFLOW_ENGINE_UNAVAILABLE: 'The service cannot start the operation right now. Nothing was charged; try again shortly.',
  KEY_LIMIT_REACHED: 'You have reached the limit of active API keys. Delete one you no longer use.',
  LIVE_CREDENTIAL_REQUIRED: 'Organisations are shared by live and test mode: this change needs live mode.',
  DOMAIN_MOVE_LIMIT: 'This organisation has as many domain moves waiting for an answer as its plan allows. Cancel one, or wait until one is accepted or expires.',
};

/** One sentence (or a few) saying what went wrong, never raw JSON. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.fieldErrors;
    if (fields.length > 0) return fields.map((f) => `${fieldLabel(f.loc)}: ${f.msg}`).join(' ');
    if (error.code === 'INSUFFICIENT_FUNDS' || error.code === 'SPEND_LIMIT_REACHED') return explainPaymentRequired(error);
    const words = EXPLANATIONS[error.code];
    if (words) return words;
    const detail = typeof error.detail === 'string' ? error.detail : '';
    return detail.endsWith('.') ? detail : `${detail}.`;
  }
  if (error instanceof OperationTimeoutError) return 'The operation is still running; this page stopped watching it. Reload to look again.';
  if (error instanceof TypeError) return 'The dashboard cannot reach the service. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

/** A 402, in words: what it costs against what is there, and where to add funds. */
function explainPaymentRequired(error: ApiError): string {
  const detail = typeof error.detail === 'string' ? error.detail : '';
  if (error.code === 'SPEND_LIMIT_REACHED') return `This would go over a monthly spending limit, so nothing was charged. ${detail}`;
  return `Your balance is too low to pay for this, so nothing was charged and nothing was started. Add funds on the Billing page, then try again. (${detail})`;
}

function fieldLabel(loc: string[]): string {
  const rest = loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'path' || loc[0] === 'header' ? loc.slice(1) : loc;
  return rest.length > 0 ? rest.join('.').replaceAll('_', ' ') : 'Request';
}

/** The message for one form field (`loc` after `body`), when the error names it. */
export function fieldError(error: unknown, ...path: (string | number)[]): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const wanted = ['body', ...path.map(String)].join('.');
  return error.fieldErrors.find((f) => f.loc.map(String).join('.') === wanted)?.msg;
}

/** Whether the error is about a session that no longer exists (the page should offer sign-in). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error-note" role="alert">
      {describeError(error)}
    </p>
  );
}

