import type { AppState } from '../http/context.js';
import type { Principal } from './principal.js';

/**
 * The authenticated caller of each request in flight, kept out of the request's state: authenticate()
 * records it once, and only the router's own layers (scope, membership, rate limit, idempotency) and
 * the handler's input read it here. A handler receives it typed, as its input's `principal`
 * (src/http/route.ts); nothing in a feature reads it back from the context.
 */
const principals = new WeakMap<AppState, Principal>();

export function recordRequestPrincipal(state: AppState, principal: Principal): void {
  principals.set(state, principal);
}

/** The request's caller; only on a route with a token, after authenticate(). */
export function requestPrincipal(state: AppState): Principal {
  const principal = principals.get(state);
  if (!principal) throw new Error('route declared no authentication but reads the principal');
  return principal;
}
