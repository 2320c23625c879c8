/**
 * A small DNSimple API v2 on loopback, for the live registrar adapter's tests. Request and response
 * bodies follow dnsimple/dnsimple-developer (openapi.yml, content/v2/registrar.md, contacts.md and
 * the fixtures under fixtures/v2/api/). Every request is recorded; faults (5xx, 429, slow answers,
 * 4xx error bodies) can be queued for matching requests.
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
  /** Answer with this status; an object body is sent as JSON, a string as text/html. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Answer normally, but only after this many milliseconds. */
  | { delayMs: number };

export interface FaultMatch {
  method?: string;
  /** Exact path, or a pattern, matched against the path without the query string. */
  path?: string | RegExp;
  /** How many matching requests get the fault; default 1. */
  times?: number;
}

export interface FakeDomainState {
  available: boolean;
  premium: boolean;
  /** Sent as JSON numbers, as DNSimple's prices endpoint does (`20.0`). */
  registrationPrice: number;
  renewalPrice: number;
  transferPrice: number;
  supported: boolean;
  registered: boolean;
  expiresAt: string | null;
  locked: boolean;
  /** When set, transfers of this domain end `failed` with this status_description. */
  transferFailure?: string;
  /** Upstream auto-renewal, as the domain list shows it (`auto_renew`). */
  autoRenew?: boolean;
  /** The name servers set by `PUT …/delegation`. */
  delegation?: string[];
  /** A zone only (DNSimple's `hosted` state): listed, but not a registration. */
  hosted?: boolean;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** nginx's 502 page, as in fixtures/v2/api/badgateway.http. */
export const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body bgcolor="white">\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

const TIMESTAMP = '2016-12-09T19:35:31Z';

function plusYears(from: Date, years: number): string {
  const d = new Date(from.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function notFound(message = 'Not Found'): Answer {
  return { status: 404, body: { message } };
}

function validationFailed(errors: Record<string, string[]>): Answer {
  return { status: 400, body: { message: 'Validation failed', errors } };
}

const CONTACT_REQUIRED = ['first_name', 'last_name', 'address1', 'city', 'state_province', 'postal_code', 'country', 'email', 'phone'];

export class FakeDnsimple {
  readonly requests: RecordedRequest[] = [];
  /** 0: registrations answer 201 `registered`. N: 202 `new`, `registered` after N GETs. */
  registrationPolls = 0;
  /** Transfers answer 201 `transferring` and are `transferred` after this many GETs. */
  transferPolls = 1;

  private readonly domains = new Map<string, FakeDomainState>();
  private readonly contacts = new Map<number, Record<string, unknown>>();
  private readonly registrations = new Map<number, { domain: string; body: Record<string, unknown>; pollsLeft: number }>();
  private readonly transfers = new Map<number, { domain: string; registrantId: number; pollsLeft: number; cancelRequested: boolean; state: string }>();
  private readonly renewals = new Map<number, { domain: string; period: number }>();
  private readonly faults: { match: FaultMatch; fault: Fault; remaining: number }[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sockets = new Set<Socket>();
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
    const next = { ...this.domain(name), ...state };
    this.domains.set(name, next);
    return next;
  }

  domain(name: string): FakeDomainState {
    return (
      this.domains.get(name) ?? {
        available: true,
        premium: false,
        registrationPrice: 14.5,
        renewalPrice: 14.5,
        transferPrice: 14.5,
        supported: true,
        registered: false,
        expiresAt: null,
        locked: false,
      }
    );
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
      if (fault && 'delayMs' in fault) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!res.destroyed) this.respond(res, this.route(recorded));
        }, fault.delayMs);
        this.timers.add(timer);
        return;
      }
      this.respond(res, fault ?? this.route(recorded));
    });
  }

  private takeFault(req: RecordedRequest): Fault | undefined {
    const rule = this.faults.find(
      ({ match, remaining }) =>
        remaining > 0 &&
        (match.method === undefined || match.method === req.method) &&
        (match.path === undefined || (typeof match.path === 'string' ? match.path === req.path : match.path.test(req.path))),
    );
    if (!rule) return undefined;
    rule.remaining--;
    return rule.fault;
  }

  private respond(res: http.ServerResponse, answer: Answer): void {
    const headers: Record<string, string> = {
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
    if (req.headers.authorization !== `Bearer ${this.token}`) return { status: 401, body: { message: 'Authentication failed' } };
    const [v2, account, ...rest] = req.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (v2 !== 'v2' || account !== this.accountId) return notFound();
    const [resource, second, domain, action, id] = rest;
    if (resource === 'contacts' && second === undefined && req.method === 'POST') return this.createContact(req.body);
    if (resource === 'contacts' && second !== undefined && req.method === 'PATCH') return this.updateContact(Number(second), req.body);
    if (resource === 'domains' && second !== undefined && req.method === 'GET') return this.getDomain(second);
    if (resource === 'domains' && second === undefined && req.method === 'GET') return this.listDomains(req.query);
    if (resource !== 'registrar' || second !== 'domains' || domain === undefined || action === undefined) return notFound();

    const key = `${req.method} ${action}${id !== undefined ? '/:id' : ''}`;
    switch (key) {
      case 'GET check': {
        const d = this.domain(domain);
        return { status: 200, body: { data: { domain, available: d.available && !d.registered, premium: d.premium } } };
      }
      case 'GET prices':
        return this.prices(domain);
      case 'POST registrations':
        return this.register(domain, req.body);
      case 'GET registrations/:id':
        return this.getRegistration(domain, Number(id));
      case 'POST transfers':
        return this.transfer(domain, req.body);
      case 'GET transfers/:id':
      case 'DELETE transfers/:id':
        return this.transferState(domain, Number(id), req.method === 'DELETE');
      case 'POST renewals':
        return this.renew(domain, req.body);
      case 'GET transfer_lock':
      case 'POST transfer_lock':
      case 'DELETE transfer_lock':
        return this.transferLock(domain, req.method);
      case 'POST authorize_transfer_out':
        return this.authorizeTransferOut(domain);
      case 'PUT delegation':
        return this.delegation(domain, req.body);
      default:
        return notFound();
    }
  }

  private prices(domain: string): Answer {
    const d = this.domain(domain);
    if (!d.supported) return { status: 400, body: { message: `TLD .${domain.split('.').pop()?.toUpperCase()} is not supported` } };
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

  private register(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    const registrantId = input.registrant_id;
    if (typeof registrantId !== 'number' || !this.contacts.has(registrantId)) return validationFailed({ registrant_id: ['is invalid'] });
    const d = this.domain(domain);
    if (!d.available || d.registered) return { status: 400, body: { message: `The domain ${domain} is not available`, errors: {} } };
    if (d.premium && Number(input.premium_price) !== d.registrationPrice) {
      return { status: 400, body: { message: `Premium price required: ${domain} costs ${d.registrationPrice}`, errors: {} } };
    }
    const id = this.nextId++;
    this.registrations.set(id, { domain, body: input, pollsLeft: this.registrationPolls });
    if (this.registrationPolls === 0) this.completeRegistration(domain);
    return { status: this.registrationPolls === 0 ? 201 : 202, body: { data: this.registrationView(id) } };
  }

  private getRegistration(domain: string, id: number): Answer {
    const registration = this.registrations.get(id);
    if (!registration || registration.domain !== domain) return notFound();
    if (registration.pollsLeft > 0 && --registration.pollsLeft === 0) this.completeRegistration(domain);
    return { status: 200, body: { data: this.registrationView(id) } };
  }

  private completeRegistration(domain: string): void {
    this.setDomain(domain, { registered: true, available: false, expiresAt: plusYears(new Date(), 1) });
  }

  private registrationView(id: number): Record<string, unknown> {
    const r = this.registrations.get(id)!;
    return {
      id,
      domain_id: 999,
      registrant_id: r.body.registrant_id,
      period: 1,
      state: r.pollsLeft === 0 ? 'registered' : 'new',
      auto_renew: r.body.auto_renew === true,
      whois_privacy: false,
      trustee: false,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    };
  }

  private transfer(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    if (typeof input.registrant_id !== 'number' || !this.contacts.has(input.registrant_id)) return validationFailed({ registrant_id: ['is invalid'] });
    // fixtures/v2/api/transferDomain/error-missing-authcode.http
    if (typeof input.auth_code !== 'string' || input.auth_code === '') {
      return validationFailed({ base: ['You must provide an authorization code for the domain'] });
    }
    if (this.domain(domain).registered) {
      // fixtures/v2/api/transferDomain/error-indnsimple.http
      return { status: 400, body: { message: `The domain ${domain} is already in DNSimple and cannot be added` } };
    }
    const id = this.nextId++;
    this.transfers.set(id, { domain, registrantId: input.registrant_id, pollsLeft: this.transferPolls, cancelRequested: false, state: 'transferring' });
    return { status: 201, body: { data: this.transferView(id) } };
  }

  private transferState(domain: string, id: number, cancel: boolean): Answer {
    const t = this.transfers.get(id);
    if (!t || t.domain !== domain) return notFound();
    if (cancel) {
      if (t.state !== 'transferring') return { status: 400, body: { message: 'The transfer cannot be canceled' } };
      t.cancelRequested = true;
      return { status: 202, body: { data: this.transferView(id) } };
    }
    if (t.state === 'transferring') {
      if (t.cancelRequested) t.state = 'cancelled';
      else if (t.pollsLeft > 0 && --t.pollsLeft > 0) t.state = 'transferring';
      else if (this.domain(domain).transferFailure) t.state = 'failed';
      else {
        t.state = 'transferred';
        this.setDomain(domain, { registered: true, available: false, expiresAt: plusYears(new Date(), 1) });
      }
    }
    return { status: 200, body: { data: this.transferView(id) } };
  }

  private transferView(id: number): Record<string, unknown> {
    const t = this.transfers.get(id)!;
    const description = t.state === 'cancelled' ? 'Canceled by customer' : t.state === 'failed' ? (this.domain(t.domain).transferFailure ?? null) : null;
    return {
      id,
      domain_id: 182245,
      registrant_id: t.registrantId,
      state: t.state,
      auto_renew: false,
      whois_privacy: false,
      trustee: false,
      status_description: description,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    };
  }

  private renew(domain: string, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    const d = this.domain(domain);
    // fixtures/v2/api/renewDomain/error-tooearly.http
    if (!d.registered) return { status: 400, body: { message: `${domain} may not be renewed at this time`, errors: {} } };
    const period = typeof input.period === 'number' ? input.period : 1;
    const base = d.expiresAt ? new Date(d.expiresAt) : new Date();
    this.setDomain(domain, { expiresAt: plusYears(base, period) });
    const id = this.nextId++;
    this.renewals.set(id, { domain, period });
    return { status: 201, body: { data: { id, domain_id: 999, period, state: 'renewed', created_at: TIMESTAMP, updated_at: TIMESTAMP } } };
  }

  private transferLock(domain: string, method: string): Answer {
    const d = this.domain(domain);
    if (!d.registered) return notFound(`Domain \`${domain}\` not found`);
    if (method === 'POST') this.setDomain(domain, { locked: true });
    if (method === 'DELETE') this.setDomain(domain, { locked: false });
    return { status: method === 'POST' ? 201 : 200, body: { data: { enabled: this.domain(domain).locked } } };
  }

  private authorizeTransferOut(domain: string): Answer {
    if (!this.domain(domain).registered) return { status: 400, body: { message: `The domain ${domain} cannot be transferred out` } };
    this.setDomain(domain, { locked: false });
    return { status: 204 };
  }

  private delegation(domain: string, body: unknown): Answer {
    if (!this.domain(domain).registered) return notFound(`Domain \`${domain}\` not found`);
    if (!Array.isArray(body) || !body.every((ns) => typeof ns === 'string')) return { status: 400, body: { message: 'Invalid name servers' } };
    this.setDomain(domain, { delegation: body });
    return { status: 200, body: { data: body } };
  }

  private getDomain(name: string): Answer {
    const d = this.domain(name);
    if (!d.registered) return notFound(`Domain \`${name}\` not found`);
    return {
      status: 200,
      body: {
        data: {
          id: 181984,
          account_id: Number(this.accountId),
          registrant_id: 2715,
          name,
          unicode_name: name,
          state: 'registered',
          auto_renew: false,
          private_whois: false,
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
    const all = [...this.domains.entries()].filter(([, d]) => d.registered || d.hosted).sort(([a], [b]) => a.localeCompare(b));
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: {
        data: slice.map(([name, d], i) => ({
          id: 181984 + i,
          account_id: Number(this.accountId),
          registrant_id: d.registered ? 2715 : null,
          name,
          unicode_name: name,
          state: d.registered ? 'registered' : 'hosted',
          auto_renew: d.autoRenew ?? false,
          private_whois: false,
          expires_on: d.registered ? (d.expiresAt?.slice(0, 10) ?? null) : null,
          expires_at: d.registered ? d.expiresAt : null,
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        })),
        pagination: { current_page: page, per_page: perPage, total_entries: all.length, total_pages: Math.max(1, Math.ceil(all.length / perPage)) },
      },
    };
  }

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

/** The app's environment pointing its live registrar at `fake`. */
export function registrarEnv(fake: FakeDnsimple): Record<string, string> {
  return { REGISTRAR_URL: fake.url, REGISTRAR_ACCOUNT: fake.accountId, REGISTRAR_TOKEN: fake.token };
}
