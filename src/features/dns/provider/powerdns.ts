import { absoluteName, presentationContent } from '../records.js';
import { networkCode } from '../../../upstream/network.js';
import { DnsProviderUnavailableError, DnsZoneNotFoundError } from './errors.js';
import type { DnsProvider, RRsetChange, TsigKey, ZoneApex, ZoneSigningKey } from './port.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { DNSSEC_ALGORITHM, DS_DIGEST_TYPE, parseDnskey, parseDs } from '../dnssecKeys.js';

/** Tries of an idempotent request that PowerDNS answered 500 (send). */
const INTERNAL_ERROR_TRIES = 10;

/**
 * Live DNS provider: PowerDNS Authoritative's HTTP API (doc.powerdns.com/authoritative/http-api/,
 * checked against PowerDNS/pdns docs/http-api/zone.rst and a real pdns_server 4.7).
 *
 * - `X-API-Key` header; everything under `/api/v1/servers/localhost/`.
 * - `POST zones` `{name: "example.com.", kind: "Native", nameservers: ["ns1.example.net."]}` → 201;
 *   409 when the zone exists (answered `created: false`; whose
 *   zone it is is src/features/dns/zones.ts's question).
 * - `PATCH zones/example.com.` `{rrsets: [{name, type, ttl, changetype: REPLACE, records: [{content,
 *   disabled: false}]}, {name, type, changetype: DELETE}]}` → 204. One PATCH is applied atomically.
 *   Names are absolute with the trailing dot; content is presentation format (MX "10 mx.example.net.",
 *   SRV "10 5 5060 sip.example.net.", TXT quoted strings of at most 255 characters).
 * - `GET zones/example.com.` → `{rrsets: [{name, type, ttl, records: [{content, disabled}]}]}`: the
 *   SOA and apex NS as served (PowerDNS writes the SOA itself when it creates a zone).
 * - Errors are `{"error": "..."}`: 404 for an unknown zone, 422 for content it will not store
 *   (e.g. "Conflicts with pre-existing RRset"), 401 for a bad key.
 *
 * - DNSSEC (docs/http-api/cryptokey.rst, checked on 4.7): `GET zones/{zone}/cryptokeys` lists the keys
 *   with `dnskey` ("257 3 13 <base64>") and `ds` (one string per digest type); `POST` of `{keytype:
 *   "csk", active: true, algorithm: "ECDSAP256SHA256"}` adds one (201, its private key in the answer,
 *   which is never kept), `DELETE …/cryptokeys/{id}` removes it (204). `PUT zones/{zone}/rectify`
 *   sets the ordering and authority data signing needs, and `PUT zones/{zone}` with `api_rectify:
 *   true` has every later PATCH rectify too. The gsqlite3 backend stores keys only with
 *   `gsqlite3-dnssec=yes` (docs/operations.md); without it adding a key fails (502 here).
 *
 * Connection failures, timeouts, 429 and 5xx are 503 (transient); every other 4xx is 502 (permanent)
 * with the provider's message in the detail.
 */
export interface PowerDnsConfig {
  /** The API's base URL, e.g. `http://127.0.0.1:8081` (a trailing `/api/v1` is accepted). */
  baseUrl: string;
  apiKey: string | undefined;
  serverId?: string;
  /** Per request, connect to last body byte. Default 10 s. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * How long a PATCH of `records` records is waited for. PowerDNS writes a change in one transaction,
 * in a time that grows faster than the change: on an idle two-core machine (gsqlite3) 5,000 TXT
 * records took 0.9 s, 10,000 took 2.6 to 3.2 s and 20,000 took 8 to 11 s, and with the test suite
 * running beside it the 20,000 took over 30 s. So the base timeout, plus 1 ms a record, plus 0.1 ms
 * a record per thousand records: 20,000 records are waited for 10 + 20 + 40 s.
 */
export function patchWaitMs(baseMs: number, records: number): number {
  return Math.round(baseMs + records + (records * records) / 10_000);
}

/** A zone name as PowerDNS writes it: absolute, with the trailing dot. */
const dotted = (name: string) => (name.endsWith('.') ? name : `${name}.`);

export class PowerDnsProvider implements DnsProvider {
  private readonly root: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: PowerDnsConfig) {
    const base = config.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.root = `${base}/api/v1/servers/${encodeURIComponent(config.serverId ?? 'localhost')}`;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async createZone(input: { zone: string; nameservers: string[] }): Promise<{ created: boolean }> {
    const body = { name: dotted(input.zone), kind: 'Native', nameservers: input.nameservers.map(dotted), rrsets: soaOf(input) };
    const { status } = await this.send('POST', '/zones', body, [409]);
    return { created: status !== 409 };
  }

  async deleteZone(zone: string): Promise<{ deleted: boolean }> {
    const { status } = await this.send('DELETE', `/zones/${encodeURIComponent(dotted(zone))}`, undefined, [404]);
    return { deleted: status !== 404 };
  }

  async applyChanges(zone: string, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return;
    const rrsets = changes.map((change) => {
      const name = dotted(absoluteName(change.name, zone));
      if (change.changetype === 'DELETE' || change.records.length === 0) return { name, type: change.type, changetype: 'DELETE' };
      return {
        name,
        type: change.type,
        ttl: change.ttl,
        changetype: 'REPLACE',
        records: change.records.map((record) => ({ content: presentationContent(record), disabled: false })),
      };
    });
    const records = changes.reduce((sum, change) => sum + (change.changetype === 'DELETE' ? 1 : change.records.length), 0);
    const timeoutMs = patchWaitMs(this.timeoutMs, records);
    const { status } = await this.send('PATCH', `/zones/${encodeURIComponent(dotted(zone))}`, { rrsets }, [404], timeoutMs);
    if (status === 404) throw new DnsZoneNotFoundError(zone);
  }

  async signZone(zone: string): Promise<ZoneSigningKey> {
    const keysPath = `${this.zonePath(zone)}/cryptokeys`;
    let key = this.activeKey(await this.cryptokeys(zone));
    if (!key) {
      const created = await this.send('POST', keysPath, { keytype: 'csk', active: true, algorithm: 'ECDSAP256SHA256' }, [404]);
      if (created.status === 404) throw new DnsZoneNotFoundError(zone);
      key = this.activeKey(await this.cryptokeys(zone));
      if (!key) throw new DnsProviderUnavailableError(`The DNS provider added no active key to ${zone}`, { status: 502, transient: false });
    }
    // Record edits after this keep the zone's signing data current (api_rectify), this one sets it now.
    await this.send('PUT', this.zonePath(zone), { api_rectify: true });
    await this.send('PUT', `${this.zonePath(zone)}/rectify`, undefined);
    const ds = key.ds.map(parseDs).find((d) => d.digestType === DS_DIGEST_TYPE);
    if (!ds) throw new DnsProviderUnavailableError(`The DNS provider gave no SHA-256 DS for ${zone}`, { status: 502, transient: false });
    return { dnskey: key.dnskey, ds };
  }

  async unsignZone(zone: string): Promise<void> {
    for (const key of await this.cryptokeys(zone)) {
      await this.send('DELETE', `${this.zonePath(zone)}/cryptokeys/${key.id}`, undefined, [404]);
    }
    await this.send('PUT', `${this.zonePath(zone)}/rectify`, undefined);
  }

  async putTsigKey(key: TsigKey): Promise<void> {
    const body = { name: dotted(key.name), algorithm: key.algorithm, key: key.secret };
    const { status } = await this.send('POST', '/tsigkeys', body, [409]);
    if (status === 409) await this.send('PUT', `/tsigkeys/${encodeURIComponent(dotted(key.name))}`, body);
  }

  async deleteTsigKey(name: string): Promise<void> {
    await this.send('DELETE', `/tsigkeys/${encodeURIComponent(dotted(name))}`, undefined, [404]);
  }

  /**
   * A zone with transfers is of kind Master (PowerDNS notifies only those) with its keys in
   * `master_tsig_key_ids` (its TSIG-ALLOW-AXFR) and the servers in ALSO-NOTIFY; the server's own
   * `allow-axfr-ips` is empty (scripts/lib/powerDnsServer.ts), so an unsigned AXFR is refused.
   */
  async setTransfers(zone: string, transfers: { servers: string[]; keyNames: string[] }): Promise<void> {
    const kind = transfers.keyNames.length > 0 ? 'Master' : 'Native';
    const zoneFound = await this.send('PUT', this.zonePath(zone), { kind, master_tsig_key_ids: transfers.keyNames.map(dotted) }, [404]);
    if (zoneFound.status === 404) throw new DnsZoneNotFoundError(zone);
    await this.send('PUT', `${this.zonePath(zone)}/metadata/ALSO-NOTIFY`, { metadata: transfers.servers });
  }

  async notifySecondaries(zone: string): Promise<void> {
    await this.send('PUT', `${this.zonePath(zone)}/notify`, undefined, [404]);
  }

  private zonePath(zone: string): string {
    return `/zones/${encodeURIComponent(dotted(zone))}`;
  }

  private async cryptokeys(zone: string): Promise<PowerDnsCryptokey[]> {
    const { status, text } = await this.send('GET', `${this.zonePath(zone)}/cryptokeys`, undefined, [404]);
    if (status === 404) throw new DnsZoneNotFoundError(zone);
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) throw new DnsProviderUnavailableError('The DNS provider answered the key list with something else', { status: 502, transient: false });
    return parsed.map((k: Record<string, unknown>) => ({
      id: Number(k.id),
      active: k.active === true,
      dnskey: typeof k.dnskey === 'string' ? k.dnskey : '',
      ds: Array.isArray(k.ds) ? k.ds.filter((d): d is string => typeof d === 'string') : [],
    }));
  }

  /** The active algorithm-13 key, the one this service adds. */
  private activeKey(keys: PowerDnsCryptokey[]): PowerDnsCryptokey | undefined {
    return keys.find((k) => k.active && k.dnskey !== '' && parseDnskey(k.dnskey).algorithm === DNSSEC_ALGORITHM);
  }

  async zoneApex(zone: string): Promise<ZoneApex | undefined> {
    const apex = dotted(zone);
    // Only the apex's RRsets: the whole zone is 6.5 MB of JSON and 1.5 s at 50,000 records (docs/bench.md, Scale).
    const { status, text } = await this.send('GET', `/zones/${encodeURIComponent(apex)}?rrset_name=${encodeURIComponent(apex)}`, undefined, [404]);
    if (status === 404) return undefined;
    const rrsets = (JSON.parse(text) as { rrsets?: PowerDnsRRset[] }).rrsets ?? [];
    const at = (type: string) => rrsets.find((r) => r.name === apex && r.type === type);
    const [soa, ns] = [at('SOA'), at('NS')];
    const live = (set: PowerDnsRRset | undefined) => (set?.records ?? []).filter((r) => !r.disabled).map((r) => r.content);
    const soaContent = live(soa)[0];
    if (!soa || !soaContent) return undefined;
    return { soa: { ttl: soa.ttl, content: soaContent }, ns: { ttl: ns?.ttl ?? soa.ttl, hosts: live(ns) } };
  }

  /**
   * A request that is idempotent (whole RRsets replaced or deleted, a zone created or deleted, reads:
   * all but adding a signing key) is tried again a few times, quickly, after a 500. The gsqlite3 backend answers
   * 500 to a write that races another (SQLite's "database is locked": its deferred transactions
   * cannot wait for each other), which concurrent edits of one zone make routine
   * (docs/operations.md, PowerDNS settings).
   */
  private async send(method: string, path: string, body: unknown, allow: number[] = [], timeoutMs = this.timeoutMs): Promise<{ status: number; text: string }> {
    const deadline = Date.now() + timeoutMs;
    const tries = method === 'POST' && path.endsWith('/cryptokeys') ? 1 : INTERNAL_ERROR_TRIES;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.sendOnce(method, path, body, allow, Math.max(1, deadline - Date.now()));
      } catch (err) {
        const raced = err instanceof DnsProviderUnavailableError && err.upstreamStatus === 500;
        const pause = Math.min(250, 10 * 2 ** attempt) * (0.5 + Math.random());
        if (!raced || attempt >= tries || Date.now() + pause >= deadline) throw err;
        await sleep(pause);
      }
    }
  }

  private async sendOnce(method: string, path: string, body: unknown, allow: number[], timeoutMs: number): Promise<{ status: number; text: string }> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.root}${path}`, {
        method,
        headers: {
          ...(this.config.apiKey ? { 'X-API-Key': this.config.apiKey } : {}),
          Accept: 'application/json',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const detail = timedOut
        ? `The DNS provider did not answer ${method} ${path} within ${timeoutMs} ms`
        : `Could not reach the DNS provider (${networkCode(err) ?? 'connection failed'})`;
      throw new DnsProviderUnavailableError(detail, { status: 503, transient: true, cause: err });
    }
    if ((status >= 200 && status < 300) || allow.includes(status)) return { status, text };
    const message = errorMessage(text, status);
    if (status === 429 || status >= 500) {
      throw new DnsProviderUnavailableError(`The DNS provider is unavailable (${status}): ${message}`, { status: 503, transient: true, upstreamStatus: status });
    }
    throw new DnsProviderUnavailableError(`The DNS provider refused the change (${status}): ${message}`, {
      status: 502,
      transient: false,
      upstreamStatus: status,
    });
  }
}

interface PowerDnsCryptokey {
  id: number;
  active: boolean;
  dnskey: string;
  ds: string[];
}

interface PowerDnsRRset {
  name: string;
  type: string;
  ttl: number;
  records?: { content: string; disabled?: boolean }[];
}

/** PowerDNS errors are `{"error": "..."}`; some answers (401, 404, 409) are plain text. */
function errorMessage(text: string, status: number): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: fall through to the text itself
  }
  const plain = text.trim().slice(0, 200);
  return plain === '' ? `HTTP ${status}` : plain;
}

/**
 * The zone's SOA names its first name server as the primary and `hostmaster.<zone>` as the contact,
 * as a DNS host's zones do; without it PowerDNS writes a placeholder primary
 * (`a.misconfigured.dns.server.invalid`) that exports and secondary servers then carry. PowerDNS
 * sets the serial itself (its `soa-edit-api`). A zone without name servers keeps the placeholder.
 */
function soaOf(input: { zone: string; nameservers: string[] }): { name: string; type: 'SOA'; ttl: number; records: { content: string; disabled: boolean }[] }[] {
  const primary = input.nameservers[0];
  if (!primary) return [];
  const content = `${dotted(primary)} hostmaster.${dotted(input.zone)} 1 10800 3600 604800 3600`;
  return [{ name: dotted(input.zone), type: 'SOA', ttl: 3600, records: [{ content, disabled: false }] }];
}
