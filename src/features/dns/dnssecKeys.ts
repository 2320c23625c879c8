import { createECDH, createHash } from 'node:crypto';

/**
 * DNSSEC arithmetic on a zone's key (RFC 4034): its DNSKEY record, key tag and DS digest. The
 * service signs with ECDSA P-256 with SHA-256 (algorithm 13, RFC 6605) and publishes SHA-256 DS
 * digests (digest type 2) only: every validator supports both, and the other digest types PowerDNS
 * offers (SHA-1, SHA-384) add nothing a parent needs.
 */
export const DNSSEC_ALGORITHM = 13;
export const DS_DIGEST_TYPE = 2;
/** Zone key with the Secure Entry Point bit: one key signs everything (a CSK). */
export const DNSKEY_FLAGS = 257;

/** One DS record as the API shows it and the registrar takes it. */
export interface DsRecord {
  keyTag: number;
  algorithm: number;
  digestType: number;
  /** Lower-case hexadecimal. */
  digest: string;
}

export interface Dnskey {
  flags: number;
  protocol: number;
  algorithm: number;
  /** The public key, base64. */
  publicKey: string;
}

/** `257 3 13 <base64>`, as PowerDNS and zone files write it (the key may be split by spaces). */
export function parseDnskey(text: string): Dnskey {
  const [flags, protocol, algorithm, ...key] = text.trim().split(/\s+/);
  const numbers = [flags, protocol, algorithm].map(Number);
  if (numbers.some((n) => !Number.isInteger(n)) || key.length === 0) throw new Error(`not a DNSKEY: ${text}`);
  return { flags: numbers[0]!, protocol: numbers[1]!, algorithm: numbers[2]!, publicKey: key.join('') };
}

export function formatDnskey(key: Dnskey): string {
  return `${key.flags} ${key.protocol} ${key.algorithm} ${key.publicKey}`;
}

function dnskeyRdata(key: Dnskey): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(key.flags, 0);
  head.writeUInt8(key.protocol, 2);
  head.writeUInt8(key.algorithm, 3);
  return Buffer.concat([head, Buffer.from(key.publicKey, 'base64')]);
}

/** RFC 4034 appendix B (every algorithm but the retired RSA/MD5). */
export function keyTag(key: Dnskey): number {
  const rdata = dnskeyRdata(key);
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i]! : rdata[i]! << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** The owner name in canonical wire form (RFC 4034 section 6.2): lower case, length-prefixed labels. */
function canonicalName(zone: string): Buffer {
  const labels = zone.toLowerCase().replace(/\.$/, '').split('.').filter((label) => label !== '');
  return Buffer.concat([...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])), Buffer.from([0])]);
}

/** The SHA-256 DS of the zone's key (RFC 4509): digest over owner name and DNSKEY RDATA. */
export function dsOf(zone: string, key: Dnskey): DsRecord {
  const digest = createHash('sha256').update(canonicalName(zone)).update(dnskeyRdata(key)).digest('hex');
  return { keyTag: keyTag(key), algorithm: key.algorithm, digestType: DS_DIGEST_TYPE, digest };
}

/** `<key tag> <algorithm> <digest type> <digest>`, as a zone file (and PowerDNS) writes a DS. */
export function formatDs(ds: DsRecord): string {
  return `${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest}`;
}

export function parseDs(text: string): DsRecord {
  const [tag, algorithm, digestType, ...digest] = text.trim().split(/\s+/);
  const numbers = [tag, algorithm, digestType].map(Number);
  if (numbers.some((n) => !Number.isInteger(n)) || digest.length === 0) throw new Error(`not a DS: ${text}`);
  return { keyTag: numbers[0]!, algorithm: numbers[1]!, digestType: numbers[2]!, digest: digest.join('').toLowerCase() };
}

export function sameDs(a: DsRecord, b: DsRecord): boolean {
  return a.keyTag === b.keyTag && a.algorithm === b.algorithm && a.digestType === b.digestType && a.digest.toLowerCase() === b.digest.toLowerCase();
}

/**
 * A real P-256 public key derived from `seed`: the same seed always gives the same key, so a
 * retried call answers the same DS. Only test mode uses it (src/features/dns/provider/synthetic.ts):
 * its private half is as guessable as the seed, which is why nothing is ever signed with it.
 */
export function derivedP256Dnskey(seed: string): Dnskey {
  for (let round = 0; ; round++) {
    const scalar = createHash('sha256').update(`${round}|${seed}`).digest();
    try {
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(scalar);
      // Uncompressed point 0x04 || x || y; DNSKEY carries x || y (RFC 6605 section 4).
      const publicKey = ecdh.getPublicKey().subarray(1).toString('base64');
      return { flags: DNSKEY_FLAGS, protocol: 3, algorithm: DNSSEC_ALGORITHM, publicKey };
    } catch {
      // A scalar outside the curve's order (chance about 2^-32): hash again.
    }
  }
}
