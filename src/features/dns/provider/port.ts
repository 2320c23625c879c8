import type { RecordType } from '../records.js';
import type { DsRecord } from '../dnssecKeys.js';

/**
 * The DNS-provider port: what the service needs from the servers that answer for its domains.
 * Test mode uses the synthetic adapter (synthetic.ts); live mode speaks PowerDNS Authoritative's
 * HTTP API (powerdns.ts).
 *
 * Changes are whole RRsets (every record of one name and type), so a caller that builds the set
 * from its own rows, while holding a lock on that name, can never drop a record another edit added.
 * Zone names are given without the trailing dot; record names relative to the zone (`@` for the apex).
 *
 * Every method throws the errors of ./errors.ts: DnsProviderUnavailableError (503 when a retry may
 * help, 502 when the provider refused), DnsZoneNotFoundError when the zone does not exist there.
 */
export interface ProviderRecord {
  type: RecordType;
  /** Our stored form; the adapter writes it the way the provider expects (priority, quoting, dots). */
  content: string;
  priority: number | null;
}

export type RRsetChange =
  | { changetype: 'REPLACE'; name: string; type: RecordType; ttl: number; records: ProviderRecord[] }
  | { changetype: 'DELETE'; name: string; type: RecordType };

/** The records at a zone's apex that the host writes itself: its SOA, and the NS records naming its servers. */
export interface ZoneApex {
  /** `content` in presentation form: `mname. rname. serial refresh retry expire minimum`. */
  soa: { ttl: number; content: string };
  /** Absolute, with their trailing dots. */
  ns: { ttl: number; hosts: string[] };
}

export interface DnsProvider {
  /**
   * Creates the zone with these name servers at the apex; an existing zone is left as it is (whose it
   * is, and whether to replace it, is decided above the port: src/features/dns/zones.ts).
   */
  createZone(input: { zone: string; nameservers: string[] }): Promise<{ created: boolean }>;
  /** Deletes the zone with all its records; a zone that does not exist is fine. */
  deleteZone(zone: string): Promise<{ deleted: boolean }>;
  /**
   * Applies every change atomically (all or none); each name and type appears at most once. REPLACE
   * replaces the whole RRset of `name` and `type`; DELETE removes it, and one that does not exist is fine.
   */
  applyChanges(zone: string, changes: RRsetChange[]): Promise<void>;
  /** The SOA and apex NS records as served; undefined when the host serves no such zone (test mode never does). */
  zoneApex(zone: string): Promise<ZoneApex | undefined>;
  /**
   * Signs the zone with one ECDSA P-256 key (algorithm 13), or keeps the active key it has: a retry
   * answers the same key. Answers the key (`257 3 13 <base64>`) and its SHA-256 DS.
   */
  signZone(zone: string): Promise<ZoneSigningKey>;
  /** Removes every key: the zone is served unsigned. A zone without keys is fine. */
  unsignZone(zone: string): Promise<void>;
  /** Adds (or, on a retry, sets again) a TSIG key the host knows by `name` (HMAC-SHA256, `secret` in base64). */
  putTsigKey(key: TsigKey): Promise<void>;
  /** Removes that key; one the host does not have is fine. */
  deleteTsigKey(name: string): Promise<void>;
  /**
   * Who may transfer the zone: AXFR/IXFR signed with one of `keyNames`, and NOTIFY sent to `servers`
   * (`address` or `address:port`) on every change. No keys: the zone is transferred to no one.
   */
  setTransfers(zone: string, transfers: { servers: string[]; keyNames: string[] }): Promise<void>;
  /** Sends NOTIFY to the zone's secondaries now (after a change; the host's own check comes only once a minute). */
  notifySecondaries(zone: string): Promise<void>;
}

export interface TsigKey {
  /** A domain name, absolute or not. */
  name: string;
  algorithm: 'hmac-sha256';
  secret: string;
}

export interface ZoneSigningKey {
  dnskey: string;
  ds: DsRecord;
}
