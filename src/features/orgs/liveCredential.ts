import { LiveCredentialRequiredError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';

/**
 * Creating an organisation and every membership change: sessions (in either mode: organisations
 * are shared by both) and live keys only.
 */
export function requireLiveCredential(principal: Principal): void {
  if (principal.type === 'api_key' && !principal.livemode) throw new LiveCredentialRequiredError();
}
