/**
 * The dashboard's own endpoints (src/dashboard/ on the server), outside the API: who is signed in,
 * with the CSRF token every state-changing call needs, and sign-out. Everything else goes through
 * the Browser SDK (see client.ts).
 */
export const DASHBOARD_BASE = '/dashboard';

export interface Session {
  user: { email: string; name: string | null };
  csrf_token: string;
  expires_at: string;
}

/** The signed-in session, or undefined when there is none (401 `NOT_SIGNED_IN`). */
export async function loadSession(): Promise<Session | undefined> {
  const response = await fetch(`${DASHBOARD_BASE}/session`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (response.status === 401) return undefined;
  if (!response.ok) throw new Error(`The dashboard could not read your session (HTTP ${response.status}).`);
  return (await response.json()) as Session;
}

export async function signOut(session: Session): Promise<void> {
  const response = await fetch(`${DASHBOARD_BASE}/logout`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': session.csrf_token },
  });
  if (!response.ok && response.status !== 401) throw new Error(`Signing out failed (HTTP ${response.status}).`);
}

export const signInUrl = `${DASHBOARD_BASE}/login`;
