import { contentIssue, fieldsOf, hexData, unsigned, type ContentCheck } from './recordSyntax.js';

/**
 * Records that pin a key by its digest: TLSA (RFC 6698), SSHFP (RFC 4255, 6594, 7479, 8709) and DS
 * (RFC 4034, 8624). Each is a few small numbers and then hex data, whose length follows from the
 * digest named. Stored as PowerDNS writes them back: numbers without leading zeros, the hex lower
 * case in one piece (a zone file may split it with spaces).
 */

/** Hex digits per digest: SHA-1 40, SHA-256 64, SHA-384 96, SHA-512 128. */
const HEX_LENGTH = { sha1: 40, sha256: 64, sha384: 96, sha512: 128 } as const;

function digestCheck(
  bad: (message: string) => ReturnType<typeof contentIssue>,
  numbers: number[],
  chunks: string[],
  expected: { name: string; length: number | undefined },
): ContentCheck {
  const hex = hexData(chunks);
  if (hex === undefined) return bad(`The ${expected.name} must be hexadecimal digits (0-9, a-f), an even number of them`);
  if (expected.length !== undefined && hex.length !== expected.length) {
    return bad(`The ${expected.name} must be ${expected.length} hex digits for this digest, not ${hex.length}`);
  }
  return { content: [...numbers, hex].join(' ') };
}

const TLSA_SHAPE = 'Must be "usage selector matching-type data", e.g. "3 1 1 <64 hex digits>" (DANE-EE, public key, SHA-256)';

export function checkTlsa(content: string): ContentCheck {
  const bad = (message: string) => contentIssue(message, 'tlsa_invalid');
  const [usageField, selectorField, matchingField, ...data] = fieldsOf(content);
  if (data.length === 0) return bad(TLSA_SHAPE);
  const usage = unsigned(usageField, 3);
  if (usage === undefined) return bad('Certificate usage must be 0 (PKIX-TA), 1 (PKIX-EE), 2 (DANE-TA) or 3 (DANE-EE)');
  const selector = unsigned(selectorField, 1);
  if (selector === undefined) return bad('Selector must be 0 (full certificate) or 1 (SubjectPublicKeyInfo)');
  const matching = unsigned(matchingField, 2);
  if (matching === undefined) return bad('Matching type must be 0 (exact data), 1 (SHA-256) or 2 (SHA-512)');
  const length = [undefined, HEX_LENGTH.sha256, HEX_LENGTH.sha512][matching];
  return digestCheck(bad, [usage, selector, matching], data, { name: 'certificate association data', length });
}

/** SSH key algorithms (RSA, DSA, ECDSA, Ed25519, Ed448) and fingerprint types (SHA-1, SHA-256). */
const SSHFP_ALGORITHMS = new Set([1, 2, 3, 4, 6]);
const SSHFP_DIGESTS: Record<number, number> = { 1: HEX_LENGTH.sha1, 2: HEX_LENGTH.sha256 };

export function checkSshfp(content: string): ContentCheck {
  const bad = (message: string) => contentIssue(message, 'sshfp_invalid');
  const [algorithmField, typeField, ...data] = fieldsOf(content);
  if (data.length === 0) return bad('Must be "algorithm fingerprint-type fingerprint", e.g. "4 2 <64 hex digits>" (Ed25519, SHA-256), as `ssh-keygen -r` prints it');
  const algorithm = unsigned(algorithmField, 255);
  if (algorithm === undefined || !SSHFP_ALGORITHMS.has(algorithm)) return bad('Algorithm must be 1 (RSA), 2 (DSA), 3 (ECDSA), 4 (Ed25519) or 6 (Ed448)');
  const fingerprintType = unsigned(typeField, 255);
  if (fingerprintType === undefined || !(fingerprintType in SSHFP_DIGESTS)) return bad('Fingerprint type must be 1 (SHA-1) or 2 (SHA-256)');
  return digestCheck(bad, [algorithm, fingerprintType], data, { name: 'fingerprint', length: SSHFP_DIGESTS[fingerprintType] });
}

/**
 * DNSSEC algorithms a zone may still be signed with, and DS digest types a parent may publish (RFC
 * 8624: RSAMD5, DSA, ECC-GOST and the SHA-1 and GOST digests must no longer be used for DS).
 */
const DS_ALGORITHMS = [5, 7, 8, 10, 13, 14, 15, 16];
const DS_DIGESTS: Record<number, number> = { 2: HEX_LENGTH.sha256, 4: HEX_LENGTH.sha384 };

export function checkDs(content: string): ContentCheck {
  const bad = (message: string) => contentIssue(message, 'ds_invalid');
  const [tagField, algorithmField, typeField, ...data] = fieldsOf(content);
  if (data.length === 0) return bad('Must be "key-tag algorithm digest-type digest", e.g. "12345 13 2 <64 hex digits>", as the child zone’s DNSSEC tools print it');
  const keyTag = unsigned(tagField, 65_535);
  if (keyTag === undefined) return bad('Key tag must be 0–65535');
  const algorithm = unsigned(algorithmField, 255);
  if (algorithm === undefined || !DS_ALGORITHMS.includes(algorithm)) return bad(`Algorithm must be one of ${DS_ALGORITHMS.join(', ')} (13 is ECDSA P-256 with SHA-256)`);
  const digestType = unsigned(typeField, 255);
  if (digestType === undefined || !(digestType in DS_DIGESTS)) return bad('Digest type must be 2 (SHA-256) or 4 (SHA-384)');
  return digestCheck(bad, [keyTag, algorithm, digestType], data, { name: 'digest', length: DS_DIGESTS[digestType] });
}
