import { LiveCredentialRequiredError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';

/** Creating an organisation and every membership change: sessions and live keys only. */
export function requireLiveCredential(principal: Principal): void {
  if (!principal.livemode) throw new LiveCredentialRequiredError();
}
