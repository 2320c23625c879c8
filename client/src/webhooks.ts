import type { components } from './schema.js';

/** What a webhook POSTs: the same JSON as `GET /orgs/{org_oid}/events/{event_id}`. */
export type WebhookEvent = components['schemas']['Event'];

/** Thrown by verifyWebhook when a request is not a genuine, recent webhook of ours. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as a browser (`Headers`), Node (`IncomingHttpHeaders`) or a framework gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300): older deliveries are replays. */
  toleranceSeconds?: number;
  /** The clock, for tests. */
  now?: () => number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares without stopping at the first difference, so timing tells an attacker nothing. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a webhook per the Standard Webhooks specification and returns its event: the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<payload>` under `secret` (`whsec_…`, as shown when the endpoint
 * was created or its secret rotated) must match one of the `v1,` signatures, and the timestamp must be
 * within `toleranceSeconds` of now. `payload` is the raw request body, before any JSON parsing.
 * Uses WebCrypto only, so it runs in browsers, Node 20+, Deno and workers alike.
 */
export async function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowSeconds - seconds) > tolerance) throw new WebhookVerificationError('webhook-timestamp is too old or too new');

  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('The secret is not base64 (expected whsec_…)');
  }
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  const expected = bytesToBase64(new Uint8Array(mac));
  const matches = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .some(([version, signature]) => version === 'v1' && signature !== undefined && sameText(signature, expected));
  if (!matches) throw new WebhookVerificationError('No matching signature');
  return JSON.parse(body) as WebhookEvent;
}
