import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Logger } from '../../logger.js';

export interface GithubKeysProps {
  /** `GITHUB_API_URL`; the keys are at `/meta/public_keys/secret_scanning` under it. */
  apiUrl: string;
  token: string | undefined;
  logger: Logger;
  /**
   * An unknown identifier triggers at most one refresh per this interval, so a stream of forged
   * identifiers cannot spend our GitHub rate limit (60 an hour without a token).
   */
  minRefreshIntervalMs?: number;
  /**
   * After a failed fetch, how long misses answer "unavailable" without fetching again. Short: a
   * failure must not be remembered long, or real alerts are turned away after GitHub recovered.
   */
  failureRetryMs?: number;
  fetch?: typeof fetch;
}

export type SignatureCheck = { ok: true; keyIdentifier: string } | { ok: false; reason: string };

interface PublishedKey {
  key_identifier: string;
  key: string;
  is_current?: boolean;
}

/** The key list could not be loaded: not a verdict on the signature, so the caller answers 503. */
export class GithubKeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super("GitHub's secret-scanning public keys could not be loaded", { cause });
    this.name = 'GithubKeysUnavailableError';
  }
}

/**
 * GitHub's secret-scanning public keys, cached in process. A signature names its key by
 * identifier; an identifier we have not seen makes us fetch the list again (GitHub rotates keys),
 * once, and then a signature with a still-unknown identifier is refused. While the list cannot be
 * loaded, an unknown identifier is GithubKeysUnavailableError rather than a refusal, so the route
 * answers 503 and GitHub retries instead of dropping a real alert.
 */
export class GithubSecretScanningKeys {
  private keys = new Map<string, KeyObject>();
  private lastRefresh = 0;
  private lastFailure: { at: number; error: unknown } | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly minRefreshIntervalMs: number;
  private readonly failureRetryMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly props: GithubKeysProps) {
    this.minRefreshIntervalMs = props.minRefreshIntervalMs ?? 60_000;
    this.failureRetryMs = props.failureRetryMs ?? 5_000;
    this.fetch = props.fetch ?? fetch;
  }

  /** ECDSA P-256 with SHA-256 over the exact body bytes; the signature is base64 DER. */
  async verify(body: Buffer, keyIdentifier: string, signatureBase64: string): Promise<SignatureCheck> {
    const key = await this.key(keyIdentifier);
    if (!key) return { ok: false, reason: 'unknown public key identifier' };
    const signature = Buffer.from(signatureBase64, 'base64');
    let valid: boolean;
    try {
      valid = signature.length > 0 && verify('sha256', body, { key, dsaEncoding: 'der' }, signature);
    } catch {
      valid = false;
    }
    return valid ? { ok: true, keyIdentifier } : { ok: false, reason: 'signature does not match the body' };
  }

  private async key(identifier: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(identifier);
    if (known) return known;
    if (!this.refreshing && this.refreshDue()) {
      this.refreshing = this.refresh().finally(() => (this.refreshing = undefined));
    }
    if (this.refreshing) await this.refreshing.catch(() => undefined);
    const key = this.keys.get(identifier);
    if (!key && this.lastFailure) throw new GithubKeysUnavailableError(this.lastFailure.error);
    return key;
  }

  private refreshDue(): boolean {
    const now = Date.now();
    if (this.lastFailure) return now - this.lastFailure.at >= this.failureRetryMs;
    return this.lastRefresh === 0 || now - this.lastRefresh >= this.minRefreshIntervalMs;
  }

  private async refresh(): Promise<void> {
    try {
      await this.load();
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = { at: Date.now(), error };
      this.props.logger.error({ err: error }, "could not load GitHub's secret-scanning public keys");
    }
  }

  private async load(): Promise<void> {
    this.lastRefresh = Date.now();
    const url = new URL('meta/public_keys/secret_scanning', this.props.apiUrl.endsWith('/') ? this.props.apiUrl : `${this.props.apiUrl}/`);
    const res = await this.fetch(url, {
      headers: {
        accept: 'application/vnd.github+json',
        'user-agent': 'domain-service',
        ...(this.props.token ? { authorization: `Bearer ${this.props.token}` } : {}),
      },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`GitHub answered ${res.status} for its secret-scanning public keys`);
    const body = (await res.json()) as { public_keys?: PublishedKey[] };
    const keys = new Map<string, KeyObject>();
    for (const published of body.public_keys ?? []) {
      try {
        keys.set(published.key_identifier, createPublicKey(published.key));
      } catch (err) {
        this.props.logger.warn({ err, keyIdentifier: published.key_identifier }, 'skipping an unreadable GitHub public key');
      }
    }
    this.keys = keys;
    this.props.logger.info({ keys: [...keys.keys()] }, 'loaded GitHub secret-scanning public keys');
  }
}
