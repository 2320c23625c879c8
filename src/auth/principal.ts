import type { User } from './users.js';
import type { ApiKeyGuards } from './apiKeys.js';
import type { KeyMode } from './apiKeyFormat.js';
import type { Scope } from './scopes.js';

/** Who is calling and what they may do; authenticate() finds it, and a handler receives it as its input's `principal`. */
export interface Principal {
  user: User;
  type: 'session' | 'api_key';
  keyId: string | undefined;
  mode: KeyMode;
  /** Test keys see and create only test-mode objects; sessions and live keys only live ones. */
  livemode: boolean;
  scopes: ReadonlySet<Scope>;
  /** What rate limits count against: the API key, or the browser session. */
  rateLimitSubject: string;
  /**
   * The credential itself: `api_key:<id>`, or `session:<user>:<sid>` (the `sub` when the token has no
   * `sid`). Idempotent answers are replayed only to the credential that made them.
   */
  credential: string;
  /** An API key's spending limit and restrictions (src/features/apiKeys/keyGuards.ts); absent for sessions. */
  guards?: ApiKeyGuards;
}
