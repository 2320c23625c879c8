import { createHmac } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62 } from '../ids.js';

/**
 * API key secrets: `svc_<mode>_` + 32 random base62 characters + a 6-character base62 CRC32 of
 * everything before it. The checksum lets a scanner (ours, or GitHub's) reject look-alikes without a
 * database call; only an HMAC-SHA256 of the whole key is stored.
 */
export type KeyMode = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const API_KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
/** Anything that starts like one of our keys, valid or not: decides which verifier runs. */
export const API_KEY_SHAPE = /^svc_(live|test)_/;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

export function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(mode: KeyMode): { key: string; prefix: string } {
  const body = `svc_${mode}_${randomBase62(RANDOM_LENGTH)}`;
  const key = body + checksumOf(body);
  return { key, prefix: key.slice(0, `svc_${mode}_`.length + 4) };
}

/** The key's mode when its format and checksum hold; undefined for anything else. */
export function parseApiKey(token: string): { mode: KeyMode } | undefined {
  const match = API_KEY_PATTERN.exec(token);
  if (!match) return undefined;
  const body = token.slice(0, token.length - CHECKSUM_LENGTH);
  return checksumOf(body) === match[3] ? { mode: match[1] as KeyMode } : undefined;
}

export function hashApiKey(secret: string, key: string): Buffer {
  return createHmac('sha256', secret).update(key).digest();
}
