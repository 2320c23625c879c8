import type { TestApp } from './testApp.js';
import { readJson } from './http.js';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const jsonHeaders = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });

/** A session token from the app's development identity provider. */
export async function sessionToken(app: TestApp, email: string, name?: string): Promise<string> {
  const token = await app.deps.devIdentity!.issueToken({ email, ...(name ? { name } : {}) });
  // The first request creates the user, as a first sign-in would.
  const res = await app.fetch('/api/v1/me', { headers: bearer(token) });
  if (res.status !== 200) throw new Error(`session for ${email} refused: ${res.status}`);
  return token;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  scopes: string[];
  mode: string;
  name: string;
  created_at: string;
}

export async function createKey(app: TestApp, token: string, body: Record<string, unknown>): Promise<CreatedKey> {
  const res = await app.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`key creation refused: ${res.status} ${await res.text()}`);
  return readJson<CreatedKey>(res);
}

export async function createOrg(app: TestApp, token: string, name = 'Acme'): Promise<{ id: string; name: string }> {
  const res = await app.fetch('/api/v1/orgs', { method: 'POST', headers: jsonHeaders(token), body: JSON.stringify({ name }) });
  if (res.status !== 201) throw new Error(`org creation refused: ${res.status} ${await res.text()}`);
  return readJson(res);
}

export function uniqueEmail(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;
}

/**
 * Makes the user with `email` a member: `inviter` (an owner or admin) invites the address and a
 * session of that address accepts, as the invitee would.
 */
export async function joinOrg(app: TestApp, inviter: string, orgId: string, email: string, role: 'admin' | 'member'): Promise<void> {
  const res = await app.fetch(`/api/v1/orgs/${orgId}/members`, { method: 'POST', headers: jsonHeaders(inviter), body: JSON.stringify({ email, role }) });
  if (res.status !== 201) throw new Error(`invitation refused: ${res.status} ${await res.text()}`);
  const { invitation_id: invitationId } = await readJson<{ invitation_id: string }>(res);
  const invitee = await sessionToken(app, email);
  const accepted = await app.fetch(`/api/v1/me/invitations/${invitationId}/accept`, { method: 'POST', headers: bearer(invitee) });
  if (accepted.status !== 200) throw new Error(`invitation not accepted: ${accepted.status} ${await accepted.text()}`);
}
