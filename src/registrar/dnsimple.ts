import { z } from 'zod';
import { DomainLockedError, RegistrarAccountError, RegistrarOutcomeUnknownError, RegistrarRejectedError, RegistrarUnavailableError } from './errors.js';
import { networkCode, parseRetryAfter } from '../upstream/network.js';
import { centsToDecimal, decimalToCents } from './money.js';
import {
  normalizeDomainName,
  pricesFor,
  type AuthCodeResult,
  type AvailabilityResult,
  type ContactDetails,
  type DelegationSigner,
  type HeldDelegationSigner,
  type Money,
  type PriceTable,
  type Quote,
  type ReferenceInput,
  type RegisterInput,
  type RegisterResult,
  type Registrar,
  type RegistrarAccount,
  type RegistrarDomainPage,
  type RegistrarTerms,
  type RegistrationStatus,
  type RenewalStatus,
  type RenewInput,
  type RenewResult,
  type TransferInput,
  type TransferResult,
  type TransferStatus,
} from './port.js';

/**
 * Live registrar: DNSimple API v2 (https://developer.dnsimple.com/v2/registrar/, checked against
 * dnsimple/dnsimple-developer's openapi.yml and fixtures). Its sandbox speaks the same API.
 *
 * Requests: `Authorization: Bearer`, JSON bodies sent flat (`{"registrant_id": 1}`; only responses
 * are wrapped in `{"data": …}`), errors `{"message", "errors"?}`. 5xx, 429, timeouts and connection
 * failures are RegistrarUnavailableError (transient); every other 4xx is RegistrarRejectedError.
 */
export interface DnsimpleConfig {
  /** `https://api.dnsimple.com` or `https://api.sandbox.dnsimple.com` (a trailing `/v2` is accepted). */
  baseUrl: string;
  accountId: string;
  token: string;
  /** Per read (and unpaid write), connect to last body byte. Default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Per paid POST (registration, renewal, transfer). Default PAID_TIMEOUT_MS. */
  paidTimeoutMs?: number;
  userAgent?: string;
  /**
   * DNSimple requires `job_title` whenever `organization_name` is set and our contacts carry none;
   * this is sent in its place.
   */
  organizationJobTitle?: string;
}

/** Reads: fixtures/v2/api/getDomainPrices/success.http took 9.1 s (`x-runtime`), so 10 s was too tight. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/**
 * Paid POSTs: fixtures/v2/api/registerDomain/success.http took 11.9 s and renewDomain/success.http
 * 13.6 s (`x-runtime`); three times the slowest leaves room for a slow registry.
 */
export const PAID_TIMEOUT_MS = 45_000;
/** DNSimple's renewal `period` (content/v2/registrar.md#renewDomain; registries allow 1–10 years in total). */
export const MAX_RENEWAL_PERIOD = 9;
const DEFAULT_USER_AGENT = 'domain-service/0.1 (registrar adapter)';

const money = z.union([z.number(), z.string()]);
const checkSchema = z.object({ domain: z.string(), available: z.boolean(), premium: z.boolean() });
const pricesSchema = z.object({ domain: z.string(), premium: z.boolean(), registration_price: money, renewal_price: money, transfer_price: money });
// States per openapi.yml: DomainRegistration, DomainTransfer, DomainRenewal. Unknown states read as "still pending".
const registrationSchema = z.object({ id: z.number().int(), state: z.string() });
const transferSchema = z.object({ id: z.number().int(), state: z.string(), status_description: z.string().nullish() });
const renewalSchema = z.object({ id: z.number().int(), state: z.string() });
// openapi.yml Domain.state: hosted, registered, expired.
const domainSchema = z.object({ name: z.string(), state: z.string(), expires_at: z.string().nullish(), private_whois: z.boolean().nullish() });
// openapi.yml WhoisPrivacy; enableWhoisPrivacy/created.http answers `enabled: null` for a service bought just now.
const whoisPrivacySchema = z.object({ enabled: z.boolean().nullable() });
const lockSchema = z.object({ enabled: z.boolean() });
const contactSchema = z.object({ id: z.number().int() });
const delegationSchema = z.array(z.string());
const domainListSchema = z.object({
  data: z.array(z.object({ name: z.string(), state: z.string(), auto_renew: z.boolean(), expires_at: z.string().nullish() })),
  pagination: z.object({ current_page: z.number().int(), total_pages: z.number().int() }),
});
// openapi.yml components.schemas.DelegationSigner: every number is sent as a string ("13", "2", "2371").
const dsRecordSchema = z.object({ id: z.number().int(), algorithm: z.string(), digest: z.string(), digest_type: z.string(), keytag: z.string() });
const dsListSchema = z.object({ data: z.array(dsRecordSchema), pagination: z.object({ current_page: z.number().int(), total_pages: z.number().int() }) });
const errorSchema = z.object({ message: z.string().optional(), errors: z.unknown().optional() });

type UpstreamDomain = z.output<typeof domainSchema>;

interface UpstreamResponse {
  status: number;
  body: unknown;
}

interface SendOptions {
  /** Statuses answered instead of thrown. */
  allow?: number[];
  /** A paid POST: its own timeout, and an unknown outcome is RegistrarOutcomeUnknownError. */
  paid?: boolean;
}

/** Socket failures that happen before a request can reach the server: it certainly did nothing. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'UND_ERR_CONNECT_TIMEOUT']);

export class DnsimpleRegistrar implements Registrar, RegistrarTerms, RegistrarAccount {
  /** `registrations` takes no period: longer terms are renewed after (see src/flows/registerDomain/registerDomain.workflow.ts). */
  readonly registrationTermYears = 1;
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly paidTimeoutMs: number;
  private readonly userAgent: string;
  private readonly jobTitle: string;

  constructor(
    private readonly config: DnsimpleConfig,
    private readonly prices: PriceTable,
  ) {
    const base = config.baseUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
    this.root = `${base}/v2/${encodeURIComponent(config.accountId)}`;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.paidTimeoutMs = config.paidTimeoutMs ?? PAID_TIMEOUT_MS;
    this.userAgent = config.userAgent ?? DEFAULT_USER_AGENT;
    this.jobTitle = config.organizationJobTitle ?? 'Registrant';
  }

  /** `check`, then `prices` for premium names (check says premium but never quotes a price). */
  async checkAvailability(rawName: string): Promise<AvailabilityResult> {
    const name = normalizeDomainName(rawName);
    const tablePrices = pricesFor(this.prices, name);
    if (!tablePrices) return { name, available: false, premium: false, price: null, reason: 'unsupported_tld' };
    const check = parse(checkSchema, (await this.send('GET', this.domainPath(name, 'check'))).body);
    if (!check.available) return { name, available: false, premium: check.premium, price: null };
    if (!check.premium) return { name, available: true, premium: false, price: { amount: tablePrices.register, currency: 'USD' } };
    const quote = await this.quote(name);
    return { name, available: true, premium: true, price: quote.register };
  }

  /** fixtures/v2/api/getDomainPrices/success.http: prices per year as JSON numbers (`20.0`). */
  async quote(rawName: string): Promise<Quote> {
    const quote = parse(pricesSchema, (await this.send('GET', this.domainPath(normalizeDomainName(rawName), 'prices'))).body);
    const usd = (value: string | number): Money => ({ amount: toCents(value), currency: 'USD' });
    return { premium: quote.premium, register: usd(quote.registration_price), renew: usd(quote.renewal_price), transfer: usd(quote.transfer_price) };
  }

  /**
   * Reads the domain first: one already registered in the account is a registration an earlier
   * attempt made. Otherwise POSTs (registerDomain/success.http: 201 with `state: new`, then polled).
   * `auto_renew: false` always: the service renews from the customer's balance.
   */
  async register(input: RegisterInput): Promise<RegisterResult> {
    const name = normalizeDomainName(input.name);
    if (input.years !== 1) {
      // The registrations endpoint takes no period: DNSimple registers for the TLD's minimum term.
      throw new RegistrarRejectedError(`The registrar registers ${name} for one year only; register for 1 year, then renew`);
    }
    const registrantId = input.registrantRegistrarId ?? (await this.syncContact(input.registrant));
    const base = { registrantRegistrarId: registrantId, nameserversApplied: false } as const;
    const unknown = { state: 'pending', registrarReference: null, ...base } as const;
    const held = await this.heldDomain(name);
    if (held?.state === 'registered' && held.expires_at) return { ...base, state: 'registered', expiresAt: held.expires_at, registrarReference: null };
    let registration: z.output<typeof registrationSchema>;
    try {
      registration = await this.paidPost(
        this.domainPath(name, 'registrations'),
        { registrant_id: upstreamId(registrantId), auto_renew: false, ...premiumPrice(input.premiumPrice) },
        registrationSchema,
      );
    } catch (err) {
      if (err instanceof RegistrarOutcomeUnknownError) return unknown;
      // "Already in the account" after an attempt whose outcome was unknown: the domain tells.
      if (input.resumed && err instanceof RegistrarRejectedError && (await this.heldDomain(name))) return unknown;
      throw err;
    }
    const pending = { ...base, state: 'pending', registrarReference: String(registration.id) } as const;
    const outcome = jobOutcome(registration.state, 'registered');
    if (outcome === 'failed') throw new RegistrarRejectedError(`The registration of ${name} ${registration.state} at the registrar`);
    if (outcome === 'pending') return pending;
    // The registration is done; if reading the expiry fails, the caller polls instead of retrying the POST.
    const expiresAt = await this.expiresAt(name).catch(() => undefined);
    return expiresAt ? { ...pending, state: 'registered', expiresAt } : pending;
  }

  /** getDomainRegistration/success.http; a 404 on a reference we hold is reconciled from the domain. */
  async registrationStatus(input: ReferenceInput): Promise<RegistrationStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `registrations/${encodeURIComponent(input.registrarReference)}`);
    const response = await this.send('GET', path, undefined, { allow: [404] });
    if (response.status === 404) return this.domainReached(name);
    const registration = parse(registrationSchema, response.body);
    const outcome = jobOutcome(registration.state, 'registered');
    if (outcome === 'failed') return { state: 'failed', detail: `Registration ${registration.state} at the registrar` };
    return outcome === 'done' ? this.domainReached(name) : { state: 'pending' };
  }

  /** As `register`: a domain already registered in the account is a transfer an earlier attempt made. */
  async transfer(input: TransferInput): Promise<TransferResult> {
    const name = normalizeDomainName(input.name);
    const registrantId = input.registrantRegistrarId ?? (await this.syncContact(input.registrant));
    const unknown = { state: 'transferring', registrarReference: null, registrantRegistrarId: registrantId } as const;
    const held = await this.heldDomain(name);
    if (held?.state === 'registered' && held.expires_at) {
      return { state: 'transferred', registrarReference: null, registrantRegistrarId: registrantId, expiresAt: held.expires_at };
    }
    let transfer: z.output<typeof transferSchema>;
    try {
      transfer = await this.paidPost(
        this.domainPath(name, 'transfers'),
        { registrant_id: upstreamId(registrantId), auth_code: input.authCode, auto_renew: false, ...premiumPrice(input.premiumPrice) },
        transferSchema,
      );
    } catch (err) {
      if (err instanceof RegistrarOutcomeUnknownError) return unknown;
      if (input.resumed && err instanceof RegistrarRejectedError && (await this.heldDomain(name))) return unknown;
      throw err;
    }
    if (transfer.state === 'failed' || transfer.state === 'cancelled') {
      throw new RegistrarRejectedError(transfer.status_description || `The transfer of ${name} ${transfer.state} at the registrar`);
    }
    return { state: transfer.state === 'transferred' ? 'transferred' : 'transferring', registrarReference: String(transfer.id), registrantRegistrarId: registrantId };
  }

  /** getDomainTransfer/success.http; a 404 on a reference we hold is reconciled from the domain. */
  async transferStatus(input: ReferenceInput): Promise<TransferStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `transfers/${encodeURIComponent(input.registrarReference)}`);
    const response = await this.send('GET', path, undefined, { allow: [404] });
    const status = response.status === 404 ? { state: 'completed' as const } : transferStatusOf(parse(transferSchema, response.body));
    if (status.state !== 'completed') return status;
    const reached = await this.domainReached(name);
    return reached.state === 'registered' ? { ...status, expiresAt: reached.expiresAt } : { state: 'pending' };
  }

  /**
   * cancelDomainTransfer/success.http: 202 with the transfer still `transferring`: the cancellation
   * is queued, so the caller keeps polling. A 400 ("cannot be canceled", registrar.md) usually means
   * the transfer already ended: its state is read and answered instead.
   */
  async cancelTransfer(input: ReferenceInput): Promise<TransferStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `transfers/${encodeURIComponent(input.registrarReference)}`);
    const response = await this.send('DELETE', path, undefined, { allow: [400, 404] });
    if (response.status !== 202 && response.status !== 200) return this.transferStatus(input);
    return transferStatusOf(parse(transferSchema, response.body));
  }

  /**
   * With `expiresBefore`, an expiry already past it is a renewal an earlier attempt made, and is not
   * sent again. renewDomain/success.http: 201 with `state: new`, then polled (getDomainRenewal).
   */
  async renew(input: RenewInput): Promise<RenewResult> {
    const name = normalizeDomainName(input.name);
    if (!Number.isInteger(input.years) || input.years < 1 || input.years > MAX_RENEWAL_PERIOD) {
      throw new RegistrarRejectedError(`The registrar renews for 1 to ${MAX_RENEWAL_PERIOD} years at a time, not ${input.years}`);
    }
    const moved = async (): Promise<string | undefined> => {
      if (input.expiresBefore === undefined || input.expiresBefore === null) return undefined;
      const now = await this.domainExpiry(name);
      return now !== null && Date.parse(now) > Date.parse(input.expiresBefore) ? now : undefined;
    };
    const already = await moved();
    if (already) return { state: 'renewed', expiresAt: already, registrarReference: null };
    let renewal: z.output<typeof renewalSchema>;
    try {
      renewal = await this.paidPost(this.domainPath(name, 'renewals'), { period: input.years, ...premiumPrice(input.premiumPrice) }, renewalSchema);
    } catch (err) {
      if (err instanceof RegistrarOutcomeUnknownError) return { state: 'pending', registrarReference: null };
      if (input.resumed && err instanceof RegistrarRejectedError) {
        const after = await moved();
        if (after) return { state: 'renewed', expiresAt: after, registrarReference: null };
      }
      throw err;
    }
    const pending = { state: 'pending', registrarReference: String(renewal.id) } as const;
    const outcome = jobOutcome(renewal.state, 'renewed');
    if (outcome === 'failed') throw new RegistrarRejectedError(`The renewal of ${name} ${renewal.state} at the registrar`);
    if (outcome === 'pending') return pending;
    const expiresAt = await this.expiresAt(name).catch(() => undefined);
    return expiresAt ? { state: 'renewed', expiresAt, registrarReference: pending.registrarReference } : pending;
  }

  /** getDomainRenewal/success.http; a 404 on a reference we hold is reconciled from the expiry. */
  async renewalStatus(input: ReferenceInput & { expiresBefore?: string | null }): Promise<RenewalStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `renewals/${encodeURIComponent(input.registrarReference)}`);
    const response = await this.send('GET', path, undefined, { allow: [404] });
    if (response.status === 404) {
      const now = await this.domainExpiry(name);
      const moved = now !== null && input.expiresBefore && Date.parse(now) > Date.parse(input.expiresBefore);
      return moved ? { state: 'renewed', expiresAt: now } : { state: 'pending' };
    }
    const renewal = parse(renewalSchema, response.body);
    const outcome = jobOutcome(renewal.state, 'renewed');
    if (outcome === 'failed') return { state: 'failed', detail: `Renewal ${renewal.state} at the registrar` };
    if (outcome === 'pending') return { state: 'pending' };
    const expiresAt = await this.expiresAt(name);
    return expiresAt ? { state: 'renewed', expiresAt } : { state: 'pending' };
  }

  async domainExpiry(rawName: string): Promise<string | null> {
    return (await this.heldDomain(normalizeDomainName(rawName)))?.expires_at ?? null;
  }

  /** disableDomainAutoRenewal/success.http: 204 (content/v2/registrar/auto-renewal.md). */
  async disableAutoRenew(rawName: string): Promise<void> {
    await this.send('DELETE', this.domainPath(normalizeDomainName(rawName), 'auto_renewal'));
  }

  /** POST transfer_lock locks (201), DELETE unlocks (200); both answer `{enabled}`. */
  async setLock(input: { name: string; locked: boolean }): Promise<{ locked: boolean }> {
    const path = this.domainPath(normalizeDomainName(input.name), 'transfer_lock');
    const lock = parse(lockSchema, (await this.send(input.locked ? 'POST' : 'DELETE', path)).body);
    return { locked: lock.enabled };
  }

  /** PUT delegation with a bare JSON array of names. */
  async setNameservers(input: { name: string; nameservers: string[] }): Promise<{ nameservers: string[] }> {
    const path = this.domainPath(normalizeDomainName(input.name), 'delegation');
    return { nameservers: parse(delegationSchema, (await this.send('PUT', path, input.nameservers)).body) };
  }

  /**
   * `PUT …/whois_privacy` enables: 200 (enableWhoisPrivacy/success.http) or 201 when it was bought
   * just now (created.http, `enabled: null`; openapi.yml: "purchased and enabled"), which whois-privacy.md
   * says happens to legacy domains only: WHOIS privacy is free at DNSimple (docs/api-guide.md, WHOIS
   * privacy), so it is never charged to the customer. `DELETE` disables
   * (disableWhoisPrivacy/success.http). 400 when it cannot be (a TLD without it): REGISTRAR_REJECTED.
   * A DELETE answered 404 (notfound-whoisprivacy.http) for a domain still in the account means the
   * service was never bought: privacy is off, as asked.
   */
  async setWhoisPrivacy(input: { name: string; enabled: boolean }): Promise<{ enabled: boolean }> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, 'whois_privacy');
    if (input.enabled) return { enabled: parse(whoisPrivacySchema, (await this.send('PUT', path)).body).enabled ?? true };
    const response = await this.send('DELETE', path, undefined, { allow: [404] });
    if (response.status !== 404) return { enabled: parse(whoisPrivacySchema, response.body).enabled ?? false };
    const held = await this.heldDomain(name);
    if (!held) throw new RegistrarRejectedError(`The registrar refused: ${errorMessage(response.body, 404)}`, { upstreamStatus: 404 });
    return { enabled: held.private_whois ?? false };
  }

  /**
   * DNSimple never returns the code: `authorize_transfer_out` unlocks the domain and e-mails the
   * code to its administrative contact. Because it unlocks, a locked domain is refused first.
   */
  async getAuthCode(rawName: string): Promise<AuthCodeResult> {
    const name = normalizeDomainName(rawName);
    const lock = parse(lockSchema, (await this.send('GET', this.domainPath(name, 'transfer_lock'))).body);
    if (lock.enabled) throw new DomainLockedError(name);
    await this.send('POST', this.domainPath(name, 'authorize_transfer_out'));
    return { delivery: 'emailed' };
  }

  /** PATCH /contacts/{id} when we know the id (re-created if it was deleted upstream), else POST /contacts. */
  async syncContact(contact: ContactDetails, registrarContactId?: string): Promise<string> {
    const body = this.contactBody(contact);
    if (registrarContactId !== undefined) {
      const updated = await this.send('PATCH', `/contacts/${encodeURIComponent(registrarContactId)}`, body, { allow: [404] });
      if (updated.status !== 404) return String(parse(contactSchema, updated.body).id);
    }
    return String(parse(contactSchema, (await this.send('POST', '/contacts', body)).body).id);
  }

  private contactBody(contact: ContactDetails): Record<string, string> {
    return {
      first_name: contact.first_name,
      last_name: contact.last_name,
      organization_name: contact.organization ?? '',
      job_title: contact.organization ? this.jobTitle : '',
      email: contact.email,
      phone: contact.phone,
      address1: contact.address1,
      address2: contact.address2 ?? '',
      city: contact.city,
      // Required upstream; without one DNSimple answers 400 and the error names the field.
      ...(contact.state !== undefined ? { state_province: contact.state } : {}),
      postal_code: contact.postal_code,
      country: contact.country.toUpperCase(),
    };
  }

  // --- DS records at the parent (DNSSEC): `/domains/{domain}/ds_records`, outside `/registrar`. ---

  /** listDelegationSignerRecords/success.http: `data` plus `pagination`; every page is read. */
  async listDsRecords(rawName: string): Promise<HeldDelegationSigner[]> {
    const name = normalizeDomainName(rawName);
    const held: HeldDelegationSigner[] = [];
    for (let page = 1; ; page++) {
      const body = (await this.send('GET', `/domains/${encodeURIComponent(name)}/ds_records?page=${page}&per_page=100`)).body;
      const parsed = dsListSchema.safeParse(body);
      if (!parsed.success) throw protocolError('unexpected answer to the DS record list');
      held.push(...parsed.data.data.map(heldDs));
      if (parsed.data.pagination.current_page >= parsed.data.pagination.total_pages) return held;
    }
  }

  /** createDelegationSignerRecord/created.http: 201 with the record; validation-error.http names missing fields. */
  async addDsRecord(rawName: string, ds: DelegationSigner): Promise<HeldDelegationSigner> {
    const path = `/domains/${encodeURIComponent(normalizeDomainName(rawName))}/ds_records`;
    const body = { algorithm: String(ds.algorithm), digest: ds.digest, digest_type: String(ds.digestType), keytag: String(ds.keyTag) };
    return heldDs(parse(dsRecordSchema, (await this.send('POST', path, body)).body));
  }

  /** deleteDelegationSignerRecord/success.http: 204; notfound-delegationSignerRecord.http: 404, already gone. */
  async deleteDsRecord(rawName: string, id: string): Promise<void> {
    const path = `/domains/${encodeURIComponent(normalizeDomainName(rawName))}/ds_records/${encodeURIComponent(id)}`;
    await this.send('DELETE', path, undefined, { allow: [404] });
  }

  // --- The account's domain list (reconciliation). ---

  /**
   * `GET /domains?page=&per_page=` (default sort: name ascending). The answer carries `pagination`
   * (`current_page`, `per_page`, `total_entries`, `total_pages`) beside `data`, per
   * fixtures/v2/api/listDomains/success.http.
   */
  async listDomains(input: { page: number; perPage: number }): Promise<RegistrarDomainPage> {
    const query = `?page=${input.page}&per_page=${Math.min(100, Math.max(1, input.perPage))}`;
    const body = (await this.send('GET', `/domains${query}`)).body;
    const page = domainListSchema.safeParse(body);
    if (!page.success) throw protocolError('unexpected answer to the domain list');
    return {
      domains: page.data.data.map((d) => ({ name: d.name, state: d.state, autoRenew: d.auto_renew, expiresAt: d.expires_at ?? null })),
      page: page.data.pagination.current_page,
      totalPages: page.data.pagination.total_pages,
    };
  }

  /** `expires_at` of the domain in the account; undefined while the registry has not set it. */
  private async expiresAt(name: string): Promise<string | undefined> {
    return (await this.heldDomain(name))?.expires_at ?? undefined;
  }

  /** The domain in our account (getDomain/success.http), or undefined (notfound-domain.http). */
  private async heldDomain(name: string): Promise<UpstreamDomain | undefined> {
    const response = await this.send('GET', `/domains/${encodeURIComponent(name)}`, undefined, { allow: [404] });
    return response.status === 404 ? undefined : parse(domainSchema, response.body);
  }

  /** Registered with an expiry: done. Anything else: still pending (the workflow keeps polling). */
  private async domainReached(name: string): Promise<{ state: 'registered'; expiresAt: string } | { state: 'pending' }> {
    const domain = await this.heldDomain(name);
    return domain?.state === 'registered' && domain.expires_at ? { state: 'registered', expiresAt: domain.expires_at } : { state: 'pending' };
  }

  private domainPath(name: string, tail: string): string {
    return `/registrar/domains/${encodeURIComponent(name)}/${tail}`;
  }

  /**
   * One request with its own timeout. Answers the parsed body of a 2xx (or of a status listed in
   * `allow`); throws the port's errors for everything else.
   */
  private async send(method: string, path: string, body?: unknown, options: SendOptions = {}): Promise<UpstreamResponse> {
    const started = Date.now();
    const timeoutMs = options.paid ? this.paidTimeoutMs : this.timeoutMs;
    let status: number;
    let headers: Headers;
    let text: string;
    try {
      const response = await fetch(`${this.root}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.config.token}`,
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'User-Agent': this.userAgent,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const code = networkCode(err);
      const detail = timedOut
        ? `The registrar did not answer ${method} ${path} within ${timeoutMs} ms`
        : `Could not reach the registrar (${code ?? 'connection failed'})`;
      // Once the request may have left, a paid call's fate is unknown: it may have taken effect.
      if (options.paid && (timedOut || code === undefined || !NOT_SENT_CODES.has(code))) throw new RegistrarOutcomeUnknownError(detail, { cause: err });
      throw new RegistrarUnavailableError(detail, { cause: err });
    }

    const json = parseJson(text);
    if ((status >= 200 && status < 300) || options.allow?.includes(status)) {
      if (json === INVALID) {
        const detail = `${method} ${path} answered ${status} with a body that is not JSON`;
        if (options.paid) throw new RegistrarOutcomeUnknownError(`The registrar sent an unreadable answer: ${detail}`);
        throw protocolError(detail);
      }
      return { status, body: json };
    }
    const message = errorMessage(json, status);
    // 402 per openapi.yml components.responses.402 ("not in good standing"); 401 and 403: our token.
    if (status === 401 || status === 402 || status === 403) throw new RegistrarAccountError(`${method} ${path} answered ${status}: ${message}`, status, 'dnsimple');
    if (status >= 500 && options.paid) {
      // badgateway.http is nginx's page: the application behind it may have done the work already.
      throw new RegistrarOutcomeUnknownError(`The registrar answered ${status} to ${method} ${path}: ${message}`, { upstreamStatus: status });
    }
    if (status === 429 || status >= 500) {
      throw new RegistrarUnavailableError(`The registrar is unavailable (${status}): ${message}`, {
        upstreamStatus: status,
        retryAfterSeconds: retryAfter(headers, status, started),
      });
    }
    const errors = json !== INVALID ? errorSchema.safeParse(json).data?.errors : undefined;
    throw new RegistrarRejectedError(`The registrar refused: ${message}`, {
      status: status === 409 ? 409 : 422,
      upstreamStatus: status,
      upstreamErrors: errors,
    });
  }

  /** A paid POST whose answer is parsed inside the same guard: an answer we cannot read is an unknown outcome. */
  private async paidPost<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const response = await this.send('POST', path, body, { paid: true });
    const envelope = z.object({ data: schema }).safeParse(response.body);
    if (!envelope.success) throw new RegistrarOutcomeUnknownError(`The registrar answered POST ${path} with a shape we do not recognise`);
    return envelope.data.data;
  }
}

const INVALID = Symbol('invalid JSON');

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID;
  }
}

/** Reads `data` from a success envelope; a shape we do not recognise is not worth retrying. */
function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const envelope = z.object({ data: schema }).safeParse(body);
  if (!envelope.success) {
    throw protocolError(`unexpected answer: ${envelope.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return envelope.data.data;
}

function heldDs(record: z.output<typeof dsRecordSchema>): HeldDelegationSigner {
  const numbers = [record.keytag, record.algorithm, record.digest_type].map(Number);
  if (numbers.some((n) => !Number.isInteger(n))) throw protocolError(`unreadable DS record ${JSON.stringify(record)}`);
  return { id: String(record.id), keyTag: numbers[0]!, algorithm: numbers[1]!, digestType: numbers[2]!, digest: record.digest.toLowerCase() };
}

function protocolError(detail: string): RegistrarUnavailableError {
  return new RegistrarUnavailableError(`The registrar sent an ${detail}`, { transient: false });
}

function toCents(value: string | number): number {
  try {
    return decimalToCents(value);
  } catch (err) {
    throw new RegistrarUnavailableError(`The registrar quoted an unreadable price ${JSON.stringify(value)}`, { transient: false, cause: err });
  }
}

function premiumPrice(price: Money | undefined): { premium_price?: string } {
  if (!price) return {};
  const currency: string = price.currency; // typed USD; checked because it may come from stored JSON
  if (currency !== 'USD') throw new RegistrarRejectedError(`Premium prices are confirmed in USD, not ${currency}`);
  return { premium_price: centsToDecimal(price.amount) };
}

/** DNSimple ids are integers; ours are strings. */
function upstreamId(id: string): number {
  if (!/^\d+$/.test(id)) throw new RegistrarRejectedError(`Not a registrar contact id: ${id}`);
  return Number(id);
}

function transferStatusOf(transfer: z.output<typeof transferSchema>): TransferStatus {
  const detail = transfer.status_description ? { detail: transfer.status_description } : {};
  switch (transfer.state) {
    case 'transferred':
      return { state: 'completed', ...detail };
    case 'failed':
      return { state: 'rejected', ...detail };
    case 'cancelled':
      return { state: 'cancelled', ...detail };
    default:
      return { state: 'pending', ...detail };
  }
}

/** `message`, plus field errors (`{field: [messages]}` or `{field: "message"}`) when there are any. */
function errorMessage(json: unknown, status: number): string {
  const parsed = json === INVALID ? undefined : errorSchema.safeParse(json).data;
  const message = parsed?.message ?? `HTTP ${status}`;
  const errors = parsed?.errors;
  if (!errors || typeof errors !== 'object') return message;
  const fields = Object.entries(errors as Record<string, unknown>).map(([field, value]) => {
    const text = Array.isArray(value) ? value.map(String).join(', ') : typeof value === 'string' ? value : JSON.stringify(value);
    return `${field}: ${text}`;
  });
  return fields.length > 0 ? `${message} (${fields.join('; ')})` : message;
}

/**
 * Where a registration or renewal job stands, the same for the POST's answer and a status read:
 * `done` in its finished state, `failed` when DNSimple failed or cancelled it, else `pending`.
 */
function jobOutcome(state: string, doneState: 'registered' | 'renewed'): 'done' | 'failed' | 'pending' {
  if (state === doneState) return 'done';
  return state === 'failed' || state === 'cancelled' ? 'failed' : 'pending';
}

/**
 * Seconds to wait: `Retry-After` (seconds or an HTTP date), else for 429 the end of the rate-limit
 * window (`X-RateLimit-Reset`, Unix seconds).
 */
function retryAfter(headers: Headers, status: number, now: number): number | undefined {
  const asked = parseRetryAfter(headers, now);
  if (asked !== undefined) return asked;
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (status === 429 && reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) - Math.floor(now / 1000));
  return undefined;
}
