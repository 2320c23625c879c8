import { z } from 'zod';
import { DomainLockedError, RegistrarRejectedError, RegistrarUnavailableError } from './errors.js';
import { centsToDecimal, decimalToCents } from './money.js';
import {
  normalizeDomainName,
  pricesFor,
  type AuthCodeResult,
  type AvailabilityResult,
  type ContactDetails,
  type Money,
  type PriceTable,
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
  /** Per request, connect to last body byte. Default 10 s. */
  timeoutMs?: number;
  userAgent?: string;
  /**
   * DNSimple requires `job_title` whenever `organization_name` is set and our contacts carry none;
   * this is sent in its place.
   */
  organizationJobTitle?: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_USER_AGENT = 'domain-service/0.1 (registrar adapter)';

const money = z.union([z.number(), z.string()]);
const checkSchema = z.object({ domain: z.string(), available: z.boolean(), premium: z.boolean() });
const pricesSchema = z.object({ domain: z.string(), premium: z.boolean(), registration_price: money });
// States per openapi.yml: DomainRegistration, DomainTransfer, DomainRenewal. Unknown states read as "still pending".
const registrationSchema = z.object({ id: z.number().int(), state: z.string() });
const transferSchema = z.object({ id: z.number().int(), state: z.string(), status_description: z.string().nullish() });
const renewalSchema = z.object({ id: z.number().int(), state: z.string() });
const domainSchema = z.object({ name: z.string(), state: z.string(), expires_at: z.string().nullish() });
const lockSchema = z.object({ enabled: z.boolean() });
const contactSchema = z.object({ id: z.number().int() });
const delegationSchema = z.array(z.string());
const domainListSchema = z.object({
  data: z.array(z.object({ name: z.string(), state: z.string(), auto_renew: z.boolean(), expires_at: z.string().nullish() })),
  pagination: z.object({ current_page: z.number().int(), total_pages: z.number().int() }),
});
const errorSchema = z.object({ message: z.string().optional(), errors: z.unknown().optional() });

interface UpstreamResponse {
  status: number;
  body: unknown;
}

export class DnsimpleRegistrar implements Registrar, RegistrarTerms, RegistrarAccount {
  /** `registrations` takes no period: longer terms are renewed after (see workflows/registerDomain.ts). */
  readonly registrationTermYears = 1;
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly jobTitle: string;

  constructor(
    private readonly config: DnsimpleConfig,
    private readonly prices: PriceTable,
  ) {
    const base = config.baseUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
    this.root = `${base}/v2/${encodeURIComponent(config.accountId)}`;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
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
    const quote = parse(pricesSchema, (await this.send('GET', this.domainPath(name, 'prices'))).body);
    return { name, available: true, premium: true, price: { amount: toCents(quote.registration_price), currency: 'USD' } };
  }

  async register(input: RegisterInput): Promise<RegisterResult> {
    const name = normalizeDomainName(input.name);
    if (input.years !== 1) {
      // The registrations endpoint takes no period: DNSimple registers for the TLD's minimum term.
      throw new RegistrarRejectedError(`The registrar registers ${name} for one year only; register for 1 year, then renew`);
    }
    const registrantId = input.registrantRegistrarId ?? (await this.syncContact(input.registrant));
    const response = await this.send('POST', this.domainPath(name, 'registrations'), {
      registrant_id: upstreamId(registrantId),
      ...(input.autoRenew !== undefined ? { auto_renew: input.autoRenew } : {}),
      ...premiumPrice(input.premiumPrice),
    });
    const registration = parse(registrationSchema, response.body);
    const pending = { state: 'pending', registrarReference: String(registration.id), registrantRegistrarId: registrantId, nameserversApplied: false } as const;
    switch (registration.state) {
      case 'registered': {
        // The registration is done; if reading the expiry fails, the caller polls instead of retrying the POST.
        const expiresAt = await this.expiresAt(name).catch(() => undefined);
        return expiresAt ? { ...pending, state: 'registered', expiresAt } : pending;
      }
      case 'failed':
      case 'cancelled':
        throw new RegistrarRejectedError(`The registration of ${name} ${registration.state} at the registrar`);
      default:
        return pending;
    }
  }

  async registrationStatus(input: ReferenceInput): Promise<RegistrationStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `registrations/${encodeURIComponent(input.registrarReference)}`);
    const registration = parse(registrationSchema, (await this.send('GET', path)).body);
    switch (registration.state) {
      case 'registered': {
        const expiresAt = await this.expiresAt(name);
        return expiresAt ? { state: 'registered', expiresAt } : { state: 'pending' };
      }
      case 'failed':
      case 'cancelled':
        return { state: 'failed', detail: `Registration ${registration.state} at the registrar` };
      default:
        return { state: 'pending' };
    }
  }

  async transfer(input: TransferInput): Promise<TransferResult> {
    const name = normalizeDomainName(input.name);
    const registrantId = input.registrantRegistrarId ?? (await this.syncContact(input.registrant));
    const response = await this.send('POST', this.domainPath(name, 'transfers'), {
      registrant_id: upstreamId(registrantId),
      auth_code: input.authCode,
      ...premiumPrice(input.premiumPrice),
    });
    const transfer = parse(transferSchema, response.body);
    if (transfer.state === 'failed' || transfer.state === 'cancelled') {
      throw new RegistrarRejectedError(transfer.status_description || `The transfer of ${name} ${transfer.state} at the registrar`);
    }
    return {
      state: transfer.state === 'transferred' ? 'transferred' : 'transferring',
      registrarReference: String(transfer.id),
      registrantRegistrarId: registrantId,
    };
  }

  async transferStatus(input: ReferenceInput): Promise<TransferStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `transfers/${encodeURIComponent(input.registrarReference)}`);
    const status = transferStatusOf(parse(transferSchema, (await this.send('GET', path)).body));
    if (status.state !== 'completed') return status;
    const expiresAt = await this.expiresAt(name);
    return expiresAt ? { ...status, expiresAt } : status;
  }

  /** DELETE answers 202: the cancellation is queued, so the state is usually still `pending`. */
  async cancelTransfer(input: ReferenceInput): Promise<TransferStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `transfers/${encodeURIComponent(input.registrarReference)}`);
    return transferStatusOf(parse(transferSchema, (await this.send('DELETE', path)).body));
  }

  async renew(input: RenewInput): Promise<RenewResult> {
    const name = normalizeDomainName(input.name);
    const response = await this.send('POST', this.domainPath(name, 'renewals'), {
      period: input.years,
      ...premiumPrice(input.premiumPrice),
    });
    const renewal = parse(renewalSchema, response.body);
    const pending = { state: 'pending', registrarReference: String(renewal.id) } as const;
    switch (renewal.state) {
      case 'renewed': {
        const expiresAt = await this.expiresAt(name).catch(() => undefined);
        return expiresAt ? { state: 'renewed', expiresAt, registrarReference: pending.registrarReference } : pending;
      }
      case 'failed':
      case 'cancelled':
        throw new RegistrarRejectedError(`The renewal of ${name} ${renewal.state} at the registrar`);
      default:
        return pending;
    }
  }

  async renewalStatus(input: ReferenceInput): Promise<RenewalStatus> {
    const name = normalizeDomainName(input.name);
    const path = this.domainPath(name, `renewals/${encodeURIComponent(input.registrarReference)}`);
    const renewal = parse(renewalSchema, (await this.send('GET', path)).body);
    switch (renewal.state) {
      case 'renewed': {
        const expiresAt = await this.expiresAt(name);
        return expiresAt ? { state: 'renewed', expiresAt } : { state: 'pending' };
      }
      case 'failed':
      case 'cancelled':
        return { state: 'failed', detail: `Renewal ${renewal.state} at the registrar` };
      default:
        return { state: 'pending' };
    }
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
      const updated = await this.send('PATCH', `/contacts/${encodeURIComponent(registrarContactId)}`, body, [404]);
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
    const domain = parse(domainSchema, (await this.send('GET', `/domains/${encodeURIComponent(name)}`)).body);
    return domain.expires_at ?? undefined;
  }

  private domainPath(name: string, tail: string): string {
    return `/registrar/domains/${encodeURIComponent(name)}/${tail}`;
  }

  /**
   * One request with its own timeout. Answers the parsed body of a 2xx (or of a status listed in
   * `allow`); throws the port's errors for everything else.
   */
  private async send(method: string, path: string, body?: unknown, allow: number[] = []): Promise<UpstreamResponse> {
    const started = Date.now();
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
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const detail = timedOut
        ? `The registrar did not answer ${method} ${path} within ${this.timeoutMs} ms`
        : `Could not reach the registrar (${networkCode(err) ?? 'connection failed'})`;
      throw new RegistrarUnavailableError(detail, { cause: err });
    }

    const json = parseJson(text);
    if ((status >= 200 && status < 300) || allow.includes(status)) {
      if (json === INVALID) throw protocolError(`${method} ${path} answered ${status} with a body that is not JSON`);
      return { status, body: json };
    }
    const message = errorMessage(json, status);
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
 * Seconds to wait: `Retry-After` (seconds or an HTTP date), else for 429 the end of the rate-limit
 * window (`X-RateLimit-Reset`, Unix seconds).
 */
function retryAfter(headers: Headers, status: number, now: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value) {
    if (/^\d+$/.test(value)) return Number(value);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (status === 429 && reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) - Math.floor(now / 1000));
  return undefined;
}

function networkCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
