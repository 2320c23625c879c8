/**
 * A small DNSimple API v2 on loopback that behaves as DNSimple does, for the live adapter's tests.
 * Each behaviour names where it comes from in the public repository dnsimple/dnsimple-developer:
 * `content/v2/registrar.md`, `content/v2/openapi.yml` and the recorded responses under
 * `fixtures/v2/api/` (cited below by their path there). Where the documents are silent the choice
 * is marked "assumed" (see docs/development.md, What only DNSimple's sandbox can confirm).
 *
 * Paid work (registrations, renewals, transfers) is created when the POST arrives and completes
 * `processingMs` later, whether or not anyone polls or is still connected. Every request is
 * recorded; faults can be queued per request, or drawn at random (seeded) for every paid POST.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
  /** The query string without `?` (`page=2&per_page=30`). */
  query: string;
  /** When it arrived (ms since the epoch), to see how calls were paced. */
  at?: number;
}

export type Fault =
  /** Answer with this status without doing anything; an object body is JSON, a string text/html. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Do the work at once, answer only after this many milliseconds (even if the client left). */
  | { delayMs: number }
  /** Do the work, then answer this 5xx: the change was made but the client cannot know. */
  | { afterEffect: number }
  /** Do the work, then drop the connection without an answer. */
  | { drop: true };

export interface FaultMatch {
  method?: string;
  /** Exact path, or a pattern, matched against the path without the query string. */
  path?: string | RegExp;
  /** How many matching requests get the fault; default 1. */
  times?: number;
}

/** Random faults on every paid POST: each request gets one with probability `rate`. */
export interface ChaosOptions {
  seed: number;
  rate: number;
  /** Longer than the client's paid timeout, so "slow" answers arrive after it gave up. */
  slowMs: number;
}

export interface FakeDomainState {
  available: boolean;
  premium: boolean;
  /** Sent as JSON numbers, as getDomainPrices/success.http does (`20.0`). */
  registrationPrice: number;
  renewalPrice: number;
  transferPrice: number;
  supported: boolean;
  /** In this account: `hosted` (openapi.yml Domain.state) while a registration or transfer runs. */
  held: 'hosted' | 'registered' | null;
  expiresAt: string | null;
  locked: boolean;
  /** Upstream auto-renewal (`auto_renew` of the domain and the domain list). */
  autoRenew: boolean;
  /** When set, transfers of this domain end `failed` with this status_description. */
  transferFailure?: string;
  /** The name servers set by `PUT …/delegation`; DEFAULT_DELEGATION until then. */
  delegation?: string[];
  /** WHOIS privacy on (the domain's `private_whois`). */
  whoisPrivacy: boolean;
  /** Bought once (the first `PUT …/whois_privacy`); until then a DELETE answers notfound-whoisprivacy.http. */
  whoisPrivacyPurchased: boolean;
  /** False for a TLD that offers none (openapi.yml TLD.whois_privacy): enabling is refused with 400. */
  whoisPrivacyOffered: boolean;
}

/** What the upstream account was charged for, per domain. */
export interface Charges {
  registrations: number;
  renewals: number;
  transfers: number;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Work = { kind: 'registration' | 'renewal' | 'transfer'; id: number; domain: string; state: string; doneAt: number; cancelAt?: number; period: number; registrantId: number };

/** nginx's 502 page, as in fixtures/v2/api/badgateway.http. */
export const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body bgcolor="white">\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** fixtures/v2/api/getDomainDelegation/success.http */
export const DEFAULT_DELEGATION = ['ns1.dnsimple.com', 'ns2.dnsimple.com', 'ns3.dnsimple.com', 'ns4.dnsimple.com'];

const TIMESTAMP = '2016-12-09T19:35:31Z';
const PAID = /\/registrar\/domains\/[^/]+\/(registrations|renewals|transfers)$/;

function plusYears(from: Date, years: number): string {
  const d = new Date(from.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** mulberry32: a small seeded generator, so a chaos run can be repeated exactly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const notFound = (message = 'Not Found'): Answer => ({ status: 404, body: { message } });
const badRequest = (message: string, errors?: Record<string, unknown>): Answer => ({ status: 400, body: { message, ...(errors ? { errors } : {}) } });
const validationFailed = (errors: Record<string, string[]>): Answer => badRequest('Validation failed', errors);

const CONTACT_REQUIRED = ['first_name', 'last_name', 'address1', 'city', 'state_province', 'postal_code', 'country', 'email', 'phone'];

export class FakeDnsimple {
  readonly requests: RecordedRequest[] = [];
  /** How long paid work takes once accepted (registerDomain/success.http answers `new` first). */
  processingMs = 20;
  /** Transfers take longer ("a few minutes up to 7 days", registrar.md#transferDomain). */
  transferMs = 60;
  /** registrar.md#checkDomain: "stricter rate limits"; the number is not published (assumed). */
  checkLimit = Number.POSITIVE_INFINITY;
  /** 401, 402 or 403 to every request: a bad token, an unpaid invoice, a token without scope. */
  accountProblem: 401 | 402 | 403 | null = null;

  private readonly domains = new Map<string, FakeDomainState>();
  private readonly contacts = new Map<number, Record<string, unknown>>();
  private readonly work = new Map<number, Work>();
  private readonly charged = new Map<string, Charges>();
  private readonly ds = new Map<string, Record<string, unknown>[]>();
  private readonly faults: { match: FaultMatch; fault: Fault; remaining: number }[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sockets = new Set<Socket>();
  private chaos: { options: ChaosOptions; random: () => number } | undefined;
  private checksThisHour = 0;
  private nextId = 1;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly accountId: string,
    readonly token: string,
  ) {}

  static async start(options: { accountId?: string; token?: string } = {}): Promise<FakeDnsimple> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeDnsimple(server, `http://127.0.0.1:${port}`, options.accountId ?? '1010', options.token ?? 'dnsimple-test-token');
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => fake.receive(req, res));
    return fake;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Creates or changes a domain's state; unknown domains are available, not premium, supported. */
  setDomain(name: string, state: Partial<FakeDomainState>): FakeDomainState {
    this.settle();
    const next = { ...this.raw(name), ...state };
    this.domains.set(name, next);
    return next;
  }

  /** A domain already registered in this account, expiring at `expiresAt`. */
  holdDomain(name: string, expiresAt = '2030-01-01T00:00:00Z', extra: Partial<FakeDomainState> = {}): FakeDomainState {
    return this.setDomain(name, { held: 'registered', available: false, expiresAt, ...extra });
  }

  domain(name: string): FakeDomainState {
    this.settle();
    return this.raw(name);
  }

  private raw(name: string): FakeDomainState {
    return (
      this.domains.get(name) ?? {
        available: true,
        premium: false,
        registrationPrice: 14.5,
        renewalPrice: 14.5,
        transferPrice: 14.5,
        supported: true,
        held: null,
        expiresAt: null,
        locked: false,
        autoRenew: false,
        whoisPrivacy: false,
        whoisPrivacyPurchased: false,
        whoisPrivacyOffered: true,
      }
    );
  }

  /** What the account was charged for on this domain, counted when the paid work completed. */
  charges(name: string): Charges {
    this.settle();
    return { ...(this.charged.get(name) ?? { registrations: 0, renewals: 0, transfers: 0 }) };
  }

  addContact(fields: Record<string, unknown> = {}): number {
    const id = this.nextId++;
    this.contacts.set(id, { id, account_id: Number(this.accountId), ...fields });
    return id;
  }

  contact(id: number): Record<string, unknown> | undefined {
    return this.contacts.get(id);
  }

  fail(match: FaultMatch, fault: Fault): void {
    this.faults.push({ match, fault, remaining: match.times ?? 1 });
  }

  /** Random faults on every paid POST from now on (undefined turns them off). */
  setChaos(options: ChaosOptions | undefined): void {
    this.chaos = options ? { options, random: seeded(options.seed) } : undefined;
  }

  /** Recorded requests whose path ends with `suffix` (and method, when given). */
  requestsTo(method: string, suffix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(suffix));
  }

  private receive(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody === '' ? undefined : JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, rawBody, body, query: url.search.slice(1), at: Date.now() };
      this.requests.push(recorded);

      const fault = this.takeFault(recorded);
      if (fault && 'status' in fault) return this.respond(res, fault);
      // The work is done now, whatever then happens to the answer.
      const answer = this.route(recorded);
      if (!fault) return this.respond(res, answer);
      if ('drop' in fault) return void res.socket?.destroy();
      if ('afterEffect' in fault) return this.respond(res, { status: fault.afterEffect, body: BAD_GATEWAY_HTML });
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!res.destroyed) this.respond(res, answer);
      }, fault.delayMs);
      this.timers.add(timer);
    });
  }

  private takeFault(req: RecordedRequest): Fault | undefined {
    const rule = this.faults.find(
      ({ match, remaining }) =>
        remaining > 0 &&
        (match.method === undefined || match.method === req.method) &&
        (match.path === undefined || (typeof match.path === 'string' ? match.path === req.path : match.path.test(req.path))),
    );
    if (rule) {
      rule.remaining--;
      return rule.fault;
    }
    if (!this.chaos || req.method !== 'POST' || !PAID.test(req.path)) return undefined;
    const { random, options } = this.chaos;
    if (random() >= options.rate) return undefined;
    const kinds: Fault[] = [
      { delayMs: options.slowMs },
      { drop: true },
      { afterEffect: 502 },
      { status: 503, body: { message: 'Service Unavailable' } },
    ];
    return kinds[Math.floor(random() * kinds.length)];
  }

  private respond(res: http.ServerResponse, answer: Answer): void {
    const headers: Record<string, string> = {
      // Every fixture carries these (e.g. registerDomain/success.http).
      'x-ratelimit-limit': '2400',
      'x-ratelimit-remaining': '2399',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      ...answer.headers,
    };
    if (answer.body === undefined) {
      res.writeHead(answer.status, headers).end();
    } else if (typeof answer.body === 'string') {
      res.writeHead(answer.status, { 'content-type': 'text/html', ...headers }).end(answer.body);
    } else {
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(answer.body));
    }
  }

  private route(req: RecordedRequest): Answer {
    // openapi.yml components.responses.401
    if (req.headers.authorization !== `Bearer ${this.token}` || this.accountProblem === 401) return { status: 401, body: { message: 'Authentication failed' } };
    if (this.accountProblem === 402) {
      // openapi.yml components.responses.402 (its example names our invoice)
      return { status: 402, body: { message: 'This action cannot be completed because you have purchase invoices that need to be paid for: 12345-1010.' } };
    }
    // 403: a token without the needed scope (assumed shape: `{message}` as every other error).
    if (this.accountProblem === 403) return { status: 403, body: { message: 'Permission Denied. Required Scope: registrar:*' } };
    const [v2, account, ...rest] = req.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (v2 !== 'v2' || account !== this.accountId) return notFound();
    const [resource, second, domain, action, id] = rest;
    if (resource === 'contacts' && second === undefined && req.method === 'POST') return this.createContact(req.body);
    if (resource === 'contacts' && second !== undefined && req.method === 'PATCH') return this.updateContact(Number(second), req.body);
    if (resource === 'domains' && second !== undefined && domain === 'ds_records') return this.dsRecordsRoute(req, second, action);
    if (resource === 'domains' && second !== undefined && req.method === 'GET') return this.getDomain(second);
    if (resource === 'domains' && second === undefined && req.method === 'GET') return this.listDomains(req.query);
    if (resource !== 'registrar' || second !== 'domains' || domain === undefined || action === undefined) return notFound();

    this.settle();
    const key = `${req.method} ${action}${id !== undefined ? '/:id' : ''}`;
    switch (key) {
      case 'GET check':
        return this.check(domain);
      case 'GET prices':
        return this.prices(domain);
      case 'POST registrations':
        return this.register(domain, req.body);
      case 'POST renewals':
        return this.renew(domain, req.body);
      case 'POST transfers':
        return this.transfer(domain, req.body);
      case 'GET registrations/:id':
      case 'GET renewals/:id':
      case 'GET transfers/:id':
        return this.getWork(domain, action, Number(id));
      case 'DELETE transfers/:id':
        return this.cancelTransfer(domain, Number(id));
      case 'PUT auto_renewal':
      case 'DELETE auto_renewal':
        return this.autoRenewal(domain, req.method === 'PUT');
      case 'GET transfer_lock':
      case 'POST transfer_lock':
      case 'DELETE transfer_lock':
        return this.transferLock(domain, req.method);
      case 'POST authorize_transfer_out':
        return this.authorizeTransferOut(domain);
      case 'GET delegation':
        return this.inAccount(domain) ? { status: 200, body: { data: this.domain(domain).delegation ?? DEFAULT_DELEGATION } } : notFound(`Domain \`${domain}\` not found`);
      case 'PUT delegation':
        return this.delegation(domain, req.body);
      // `GET whois_privacy` was removed upstream (DEPRECATIONS.md, 2026-01-14): it falls to 404 below.
      case 'PUT whois_privacy':
        return this.enableWhoisPrivacy(domain);
      case 'DELETE whois_privacy':
        return this.disableWhoisPrivacy(domain);
      default:
        return notFound();
    }
  }

  /** checkDomain/success.http; registrar.md#checkDomain warns of stricter limits: 429 past `checkLimit`. */
  private check(domain: string): Answer {
    if (++this.checksThisHour > this.checkLimit) {
      return { status: 429, body: { message: 'Too many requests' }, headers: { 'x-ratelimit-limit': String(this.checkLimit), 'x-ratelimit-remaining': '0' } };
    }
    const d = this.domain(domain);
    return { status: 200, body: { data: { domain, available: d.available && d.held === null, premium: d.premium } } };
  }

  /** getDomainPrices/success.http and getDomainPrices/failure.http. */
  private prices(domain: string): Answer {
    const d = this.domain(domain);
    if (!d.supported) return badRequest(`TLD .${domain.split('.').pop()?.toUpperCase()} is not supported`);
    return {
      status: 200,
      body: {
        data: {
          domain,
          premium: d.premium,
          registration_price: d.registrationPrice,
          renewal_price: d.renewalPrice,
          transfer_price: d.transferPrice,
          restore_price: d.renewalPrice,
          trustee_price: 20.0,
        },
      },
    };
  }

  /** registrar.md: "premium_price — Required as confirmation of the price, only if the domain is premium". */
  private premiumRefused(d: FakeDomainState, body: Record<string, unknown>, price: number, domain: string): Answer | undefined {
    if (!d.premium || Number(body.premium_price) === price) return undefined;
    return badRequest(`${domain} is a premium domain: premium_price must confirm ${price.toFixed(2)}`);
  }

  /** registerDomain/success.http: 201 with `state: new`; registered `processingMs` later. */
  private register(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    const registrantId = input.registrant_id;
    if (typeof registrantId !== 'number' || !this.contacts.has(registrantId)) return validationFailed({ registrant_id: ['is invalid'] });
    const d = this.domain(domain);
    // Assumed wording: a second registration of a domain this account holds or is registering.
    if (d.held !== null) return badRequest(`The domain ${domain} is already in the account`);
    if (!d.available) return badRequest(`The domain ${domain} is not available`);
    const refused = this.premiumRefused(d, input, d.registrationPrice, domain);
    if (refused) return refused;
    // Assumed: the domain shows in the account (state `hosted`) while its registration runs.
    this.setDomain(domain, { held: 'hosted', autoRenew: input.auto_renew === true });
    const work = this.startWork('registration', domain, 1, registrantId, this.processingMs);
    return { status: 201, body: { data: this.view(work) } };
  }

  /** renewDomain/success.http: 201 `new`, then getDomainRenewal/success.http `renewed`. */
  private renew(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    const d = this.domain(domain);
    // renewDomain/error-tooearly.http
    if (d.held !== 'registered') return badRequest(`${domain} may not be renewed at this time`, {});
    const period = input.period === undefined ? 1 : input.period;
    // openapi.yml: period is the number of years; registries cap the total at 10 (assumed message).
    if (typeof period !== 'number' || !Number.isInteger(period) || period < 1 || period > 9) return validationFailed({ period: ['must be between 1 and 9'] });
    // Assumed: for several years premium_price may confirm the yearly or the whole price.
    const perYear = this.premiumRefused(d, input, d.renewalPrice, domain);
    if (perYear && this.premiumRefused(d, input, d.renewalPrice * period, domain)) return perYear;
    const work = this.startWork('renewal', domain, period, 0, this.processingMs);
    return { status: 201, body: { data: this.view(work) } };
  }

  /** transferDomain/success.http: 201 `transferring`; transferred `transferMs` later. */
  private transfer(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    if (typeof input.registrant_id !== 'number' || !this.contacts.has(input.registrant_id)) return validationFailed({ registrant_id: ['is invalid'] });
    // transferDomain/error-missing-authcode.http
    if (typeof input.auth_code !== 'string' || input.auth_code === '') return validationFailed({ base: ['You must provide an authorization code for the domain'] });
    const d = this.domain(domain);
    // transferDomain/error-indnsimple.http (also assumed for a transfer already running here)
    if (d.held !== null) return badRequest(`The domain ${domain} is already in DNSimple and cannot be added`);
    const refused = this.premiumRefused(d, input, d.transferPrice, domain);
    if (refused) return refused;
    this.setDomain(domain, { held: 'hosted', autoRenew: input.auto_renew === true });
    const work = this.startWork('transfer', domain, 1, input.registrant_id, this.transferMs);
    work.state = 'transferring';
    return { status: 201, body: { data: this.view(work) } };
  }

  private getWork(domain: string, action: string, id: number): Answer {
    const work = this.work.get(id);
    const kind = { registrations: 'registration', renewals: 'renewal', transfers: 'transfer' }[action];
    if (!work || work.domain !== domain || work.kind !== kind) return notFound();
    // getDomainRenewal/success.http answers 201 (sic); the others 200.
    return { status: work.kind === 'renewal' ? 201 : 200, body: { data: this.view(work) } };
  }

  /**
   * cancelDomainTransfer/success.http: 202 with the transfer still `transferring` (queued); it ends
   * `cancelled` (getDomainTransfer/success.http) `processingMs` later unless it completes first.
   * registrar.md: 400 "if the transfer cannot be canceled": here, once it has ended.
   */
  private cancelTransfer(domain: string, id: number): Answer {
    const work = this.work.get(id);
    if (!work || work.domain !== domain || work.kind !== 'transfer') return notFound();
    if (work.state !== 'transferring') return badRequest(`The transfer of ${domain} cannot be canceled`);
    work.cancelAt ??= Date.now() + this.processingMs;
    return { status: 202, body: { data: this.view(work) } };
  }

  /** content/v2/registrar/auto-renewal.md: PUT enables, DELETE disables, 204; 404 when not in the account. */
  private autoRenewal(domain: string, enabled: boolean): Answer {
    if (this.domain(domain).held !== 'registered') return notFound(`Domain \`${domain}\` not found`);
    this.setDomain(domain, { autoRenew: enabled });
    return { status: 204 };
  }

  private startWork(kind: Work['kind'], domain: string, period: number, registrantId: number, takesMs: number): Work {
    const work: Work = { kind, id: this.nextId++, domain, state: 'new', doneAt: Date.now() + takesMs, period, registrantId };
    this.work.set(work.id, work);
    return work;
  }

  /** Completes paid work whose time has come, cancellations first when they were due earlier. */
  private settle(): void {
    const now = Date.now();
    for (const work of this.work.values()) {
      if (work.state !== 'new' && work.state !== 'transferring') continue;
      if (work.cancelAt !== undefined && work.cancelAt <= now && work.cancelAt < work.doneAt) {
        work.state = 'cancelled';
        this.setDomainRaw(work.domain, { held: null, autoRenew: false });
      } else if (work.doneAt <= now) this.complete(work);
    }
  }

  private complete(work: Work): void {
    const d = this.raw(work.domain);
    const counts = this.charged.get(work.domain) ?? { registrations: 0, renewals: 0, transfers: 0 };
    if (work.kind === 'transfer' && d.transferFailure) {
      work.state = 'failed';
      this.setDomainRaw(work.domain, { held: null });
      return;
    }
    if (work.kind === 'renewal') {
      const base = d.expiresAt ? new Date(d.expiresAt) : new Date();
      this.setDomainRaw(work.domain, { expiresAt: plusYears(base, work.period) });
      counts.renewals++;
      work.state = 'renewed';
    } else {
      this.setDomainRaw(work.domain, { held: 'registered', available: false, expiresAt: plusYears(new Date(), 1) });
      if (work.kind === 'registration') counts.registrations++;
      else counts.transfers++;
      work.state = work.kind === 'registration' ? 'registered' : 'transferred';
    }
    this.charged.set(work.domain, counts);
  }

  private setDomainRaw(name: string, state: Partial<FakeDomainState>): void {
    this.domains.set(name, { ...this.raw(name), ...state });
  }

  private view(work: Work): Record<string, unknown> {
    const common = { id: work.id, domain_id: 999, state: work.state, created_at: TIMESTAMP, updated_at: TIMESTAMP };
    if (work.kind === 'renewal') return { ...common, period: work.period };
    const d = this.domains.get(work.domain);
    const registration = { ...common, registrant_id: work.registrantId, auto_renew: d?.autoRenew ?? false, whois_privacy: false, trustee: false };
    if (work.kind === 'registration') return { ...registration, period: 1 };
    const description = work.state === 'cancelled' ? 'Canceled by customer' : work.state === 'failed' ? (d?.transferFailure ?? null) : null;
    return { ...registration, status_description: description };
  }

  private inAccount(domain: string): boolean {
    return this.domain(domain).held === 'registered';
  }

  private transferLock(domain: string, method: string): Answer {
    if (!this.inAccount(domain)) return notFound(`Domain \`${domain}\` not found`);
    if (method === 'POST') this.setDomain(domain, { locked: true });
    if (method === 'DELETE') this.setDomain(domain, { locked: false });
    return { status: method === 'POST' ? 201 : 200, body: { data: { enabled: this.domain(domain).locked } } };
  }

  private authorizeTransferOut(domain: string): Answer {
    if (!this.inAccount(domain)) return badRequest(`The domain ${domain} cannot be transferred out`);
    this.setDomain(domain, { locked: false });
    return { status: 204 };
  }

  private delegation(domain: string, body: unknown): Answer {
    if (!this.inAccount(domain)) return notFound(`Domain \`${domain}\` not found`);
    if (!Array.isArray(body) || !body.every((ns) => typeof ns === 'string')) return badRequest('Invalid name servers');
    this.setDomain(domain, { delegation: body });
    return { status: 200, body: { data: body } };
  }

  /**
   * content/v2/registrar/whois-privacy.md: the first enable buys the service, 201 with created.http's
   * body (`enabled` and `expires_on` null); later ones 200 as enableWhoisPrivacy/success.http. 400
   * "if WHOIS privacy cannot be enabled" (the wording is assumed): here, a TLD without it.
   */
  private enableWhoisPrivacy(domain: string): Answer {
    if (!this.inAccount(domain)) return notFound(`Domain \`${domain}\` not found`);
    const d = this.domain(domain);
    if (!d.whoisPrivacyOffered) return badRequest(`WHOIS privacy is not available for .${domain.split('.').slice(1).join('.')} domains`);
    const bought = !d.whoisPrivacyPurchased;
    this.setDomain(domain, { whoisPrivacy: true, whoisPrivacyPurchased: true });
    return { status: bought ? 201 : 200, body: { data: this.whoisPrivacyView(domain, bought ? null : true) } };
  }

  /** disableWhoisPrivacy/success.http; notfound-whoisprivacy.http for a domain that never bought it. */
  private disableWhoisPrivacy(domain: string): Answer {
    if (!this.inAccount(domain)) return notFound(`Domain \`${domain}\` not found`);
    if (!this.domain(domain).whoisPrivacyPurchased) return notFound(`Whois privacy for ${domain} not found`);
    this.setDomain(domain, { whoisPrivacy: false });
    return { status: 200, body: { data: this.whoisPrivacyView(domain, false) } };
  }

  /** openapi.yml WhoisPrivacy. */
  private whoisPrivacyView(domain: string, enabled: boolean | null): Record<string, unknown> {
    const expiresOn = enabled === null ? null : (this.domain(domain).expiresAt?.slice(0, 10) ?? null);
    return { id: 1, domain_id: 999, expires_on: expiresOn, enabled, created_at: TIMESTAMP, updated_at: TIMESTAMP };
  }

  /** getDomain/success.http; notfound-domain.http when this account does not hold it. */
  private getDomain(name: string): Answer {
    const d = this.domain(name);
    if (d.held === null) return notFound(`Domain \`${name}\` not found`);
    return {
      status: 200,
      body: {
        data: {
          id: 181984,
          account_id: Number(this.accountId),
          registrant_id: 2715,
          name,
          unicode_name: name,
          state: d.held,
          auto_renew: d.autoRenew,
          private_whois: d.whoisPrivacy,
          trustee: false,
          expires_on: d.expiresAt?.slice(0, 10) ?? null,
          expires_at: d.expiresAt,
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
      },
    };
  }

  // --- Domain list (reconciliation) ---

  /**
   * `GET /v2/{account}/domains`: the account's registered and hosted domains, by name ascending,
   * `page`/`per_page` (default 30, at most 100) with the `pagination` object of
   * fixtures/v2/api/listDomains/success.http and content/v2.md ("Pagination").
   */
  private listDomains(query: string): Answer {
    const params = new URLSearchParams(query);
    const perPage = Math.min(100, Math.max(1, Number(params.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
    this.settle();
    const all = [...this.domains.entries()].filter(([, d]) => d.held !== null).sort(([a], [b]) => a.localeCompare(b));
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: {
        data: slice.map(([name, d], i) => ({
          id: 181984 + i,
          account_id: Number(this.accountId),
          registrant_id: d.held === 'registered' ? 2715 : null,
          name,
          unicode_name: name,
          state: d.held,
          auto_renew: d.autoRenew,
          private_whois: d.whoisPrivacy,
          expires_on: d.held === 'registered' ? (d.expiresAt?.slice(0, 10) ?? null) : null,
          expires_at: d.held === 'registered' ? d.expiresAt : null,
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        })),
        pagination: { current_page: page, per_page: perPage, total_entries: all.length, total_pages: Math.max(1, Math.ceil(all.length / perPage)) },
      },
    };
  }

  // --- DS records (DNSSEC) ---

  /** The DS records this account publishes for the domain, as the API shows them. */
  dsRecords(name: string): Record<string, unknown>[] {
    return [...(this.ds.get(name) ?? [])];
  }

  /**
   * `/v2/{account}/domains/{domain}/ds_records[/{id}]` (openapi.yml, tag "domain dnssec"): list
   * (listDelegationSignerRecords/success.http, paginated as the domain list), create
   * (createDelegationSignerRecord/created.http; validation-error.http when a field is missing), get
   * (getDelegationSignerRecord/success.http) and delete (deleteDelegationSignerRecord/success.http,
   * notfound-delegationSignerRecord.http). Every field is a string but the ids; `public_key` is null
   * unless sent. A domain outside the account is notfound-domain.http.
   */
  private dsRecordsRoute(req: RecordedRequest, domain: string, id: string | undefined): Answer {
    if (this.domain(domain).held === null) return notFound(`Domain \`${domain}\` not found`);
    const records = this.ds.get(domain) ?? [];
    if (id === undefined && req.method === 'GET') {
      const params = new URLSearchParams(req.query);
      const perPage = Math.min(100, Math.max(1, Number(params.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
      return {
        status: 200,
        body: {
          data: records.slice((page - 1) * perPage, page * perPage),
          pagination: { current_page: page, per_page: perPage, total_entries: records.length, total_pages: Math.max(1, Math.ceil(records.length / perPage)) },
        },
      };
    }
    if (id === undefined && req.method === 'POST') {
      const input = (req.body ?? {}) as Record<string, unknown>;
      const errors: Record<string, string[]> = {};
      for (const field of ['algorithm', 'digest', 'digest_type', 'keytag']) {
        if (typeof input[field] !== 'string' || input[field] === '') errors[field] = ["can't be blank"];
      }
      if (Object.keys(errors).length > 0) return validationFailed(errors);
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const record = {
        id: this.nextId++,
        domain_id: 1010,
        algorithm: input.algorithm,
        digest: input.digest,
        digest_type: input.digest_type,
        keytag: input.keytag,
        public_key: typeof input.public_key === 'string' ? input.public_key : null,
        created_at: now,
        updated_at: now,
      };
      this.ds.set(domain, [...records, record]);
      return { status: 201, body: { data: record } };
    }
    const found = records.find((r) => String(r.id) === id);
    if (!found || id === undefined) return notFound(`Delegation signer record \`${id ?? ''}\` not found`);
    if (req.method === 'GET') return { status: 200, body: { data: found } };
    if (req.method === 'DELETE') {
      this.ds.set(domain, records.filter((r) => r !== found));
      return { status: 204 };
    }
    return notFound();
  }

  /** validation-error.http: every contact field DNSimple requires, state_province included. */
  private contactErrors(fields: Record<string, unknown>): Record<string, string[]> {
    const errors: Record<string, string[]> = {};
    for (const field of CONTACT_REQUIRED) {
      if (typeof fields[field] !== 'string' || fields[field] === '') errors[field] = ["can't be blank"];
    }
    // contacts.md: "If the organization_name is specified, then you must also include job_title."
    if (fields.organization_name && !fields.job_title) errors.job_title = ["can't be blank"];
    return errors;
  }

  private createContact(body: unknown): Answer {
    const fields = (body ?? {}) as Record<string, unknown>;
    const errors = this.contactErrors(fields);
    if (Object.keys(errors).length > 0) return validationFailed(errors);
    const id = this.addContact({ label: '', fax: '', ...fields, created_at: TIMESTAMP, updated_at: TIMESTAMP });
    return { status: 201, body: { data: this.contacts.get(id) } };
  }

  private updateContact(id: number, body: unknown): Answer {
    const existing = this.contacts.get(id);
    if (!existing) return notFound(`Contact \`${id}\` not found`);
    const merged = { ...existing, ...((body ?? {}) as Record<string, unknown>) };
    const errors = this.contactErrors(merged);
    if (Object.keys(errors).length > 0) return validationFailed(errors);
    this.contacts.set(id, merged);
    return { status: 200, body: { data: merged } };
  }
}

/**
 * The app's environment pointing its live registrar at `fake`, with DNSimple-sized waits (polls of
 * minutes, a settle delay of two) scaled down to loopback: every duration is an input.
 */
export function registrarEnv(fake: FakeDnsimple): Record<string, string> {
  return {
    REGISTRAR_URL: fake.url,
    REGISTRAR_ACCOUNT: fake.accountId,
    REGISTRAR_TOKEN: fake.token,
    REGISTRAR_TIMEOUT: '1s',
    REGISTRAR_PAID_TIMEOUT: '1s',
    REGISTRAR_POLL_INTERVAL: '100ms',
    REGISTRAR_TRANSFER_POLL_INTERVAL: '200ms',
    REGISTRAR_SETTLE_DELAY: '300ms',
  };
}
