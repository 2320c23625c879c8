import { createClient, type DomainClient } from '../../client/src/index.js';
import { DASHBOARD_BASE, type Session } from './session.js';

export type Mode = 'live' | 'test';

/**
 * The Browser SDK in cookie mode: same-origin requests under the dashboard's proxy, which adds the
 * session's bearer token on the server; the CSRF token on every state-changing call; `X-Mode: test`
 * while the "test data" toggle is on.
 */
export function dashboardClient(session: Session, mode: Mode): DomainClient {
  return createClient({
    baseUrl: window.location.origin,
    basePath: `${DASHBOARD_BASE}/api/v1`,
    credentials: 'same-origin',
    csrfToken: () => session.csrf_token,
    mode,
    // A person is waiting: retry briefly, then show the error.
    retry: { maxAttempts: 3, maxRetryAfterMs: 10_000 },
  });
}
