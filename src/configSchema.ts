import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parsePayloadKeys } from './temporal/payloadKeys.js';
import { canonicalCidr, parseCidrs } from './http/cidr.js';
import { isLoopbackHost } from './http/loopback.js';

// Each variable is declared once: its validator, default and description (`.describe()`), in the
// section it is documented under. `npm run config:docs` (scripts/configDocs.ts) renders
// docs/configuration.md and .env.example from this file; src/config.docs.test.ts fails when they drift.

declare module 'zod' {
  interface GlobalMeta {
    /**
     * What production (`NODE_ENV=production`) insists on, enforced by the refinements below:
     * `required`, or a value it refuses. src/config.docs.test.ts checks each against loadConfig.
     */
    production?: { required: true } | { refuses: string };
  }
}

/** Durations such as `15m`, `30s`, `2h`, `500ms`, parsed to milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration such as 30s, 15m or 2h')
  .transform((value) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(value) as RegExpExecArray;
    const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'ms'];
    return Number(amount) * unitMs;
  });

const optionalString = z.string().min(1).optional();
const optionalUrl = z.url().optional();
const flag = z.enum(['true', 'false']).default('false').transform((value) => value === 'true');
const port = z.coerce.number().int().min(0).max(65535);
const onOff = z.enum(['on', 'off']).default('on');

/** Comma-separated `host:port` pairs, e.g. `10.0.0.1:26379,10.0.0.2:26379`. */
const hostPorts = z.string().transform((value, ctx) => {
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const parsed = entries.map((entry) => /^(.+):(\d{1,5})$/.exec(entry)).map((m) => (m ? { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) } : undefined));
  const bad = entries.filter((_, i) => parsed[i] === undefined || parsed[i].port > 65535);
  if (bad.length || !entries.length) {
    ctx.addIssue({ code: 'custom', message: `must be comma-separated host:port pairs such as 10.0.0.1:26379${bad.length ? `; not one: ${bad.join(', ')}` : ''}` });
    return z.NEVER;
  }
  return parsed as { host: string; port: number }[];
});

/** `https://ui.example.com` or `http://127.0.0.1:8233`: what a browser sends as `Origin`. */
const origins = z
  .string()
  .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
  .refine((list) => list.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin), {
    message: 'must be comma-separated origins such as http://localhost:8233 (scheme, host and port; no path)',
  });

/** Comma-separated CIDRs or addresses, e.g. `10.0.0.0/8,2001:db8::1`. */
const cidrList = z.string().transform((value, ctx) => {
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const canonical = entries.map(canonicalCidr);
  const bad = entries.filter((_, i) => canonical[i] === undefined);
  if (bad.length) {
    ctx.addIssue({ code: 'custom', message: `must be comma-separated CIDRs or addresses; not one: ${bad.join(', ')}` });
    return z.NEVER;
  }
  return parseCidrs(canonical as string[]);
});

/** Two API URLs naming the same server: the same origin and path, whatever the trailing `/` or `/api/v1`. */
function sameApi(a: string, b: string): boolean {
  const canonical = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
  };
  return canonical(a) === canonical(b);
}

const payloadKeys = z.string().transform((value, ctx) => {
  const parsed = parsePayloadKeys(value);
  if ('keys' in parsed) return parsed.keys;
  for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});

const REQUIRED_IN_PRODUCTION = { production: { required: true } } as const;
const TRUE_REFUSED_IN_PRODUCTION = { production: { refuses: 'true' } } as const;

/** A worker's cache of workflows between their tasks, unless WORKER_MAX_CACHED_WORKFLOWS says otherwise (docs/bench.md). */
export const DEFAULT_CACHED_WORKFLOWS = 500;

/** The variables by section, in the order docs/configuration.md shows them. */
export const configSections = {
  'HTTP server': {
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development')
      .describe('`production` turns on the refusals marked below; `development` allows the development identity provider (on loopback only).'),
    PORT: port.default(8080).describe('The port the api listens on.'),
    HOST: z.string().min(1).default('127.0.0.1')
      .describe('The address the api listens on. Without AUTH_ISSUER only loopback is accepted (the development identity provider signs in anyone), unless DEV_IDP_BEHIND_LOOPBACK.'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
      .describe('JSON logs, one line per request with its request id.'),
    HTTP_REQUEST_TIMEOUT: duration.prefault('30s').describe('How long a client may take to send its whole request; a stalled client gets 408.'),
    HTTP_HEADERS_TIMEOUT: duration.prefault('10s').describe('How long a client may take to send its headers.'),
    HTTP_KEEP_ALIVE_TIMEOUT: duration.prefault('65s')
      .describe('How long an idle connection is kept open for the client\'s next request. Keep it above the idle timeout of the proxy or load balancer in front (60 s for an AWS load balancer and many others): one that reuses a connection the api has just closed answers its client 502.'),
    TRUST_PROXY: cidrList.optional()
      .describe('Comma-separated CIDRs or addresses of the proxies in front of the api (`10.0.0.0/8,::1`). Behind them the client is the first untrusted `X-Forwarded-For` hop from the right (per-address limits, keys\' `allowed_ips`); unset: `X-Forwarded-For` is ignored.'),
    RATE_LIMIT_SCALE: z.coerce.number().positive('must be a positive number such as 1, 0.5 or 1000').finite().default(1)
      .describe('A positive number multiplying every per-key, per-session and per-user rate limit and burst, EVENTS_PER_MINUTE_PER_ORG and RECORD_CHANGES_PER_MINUTE_PER_ORG (never below 1 request); not the per-address pools nor REGISTRAR_CHECK_PER_MINUTE. A benchmark sets one that never binds (e.g. `1000`).'),
    DATA_DIR: z.string().min(1).default('.data')
      .describe('Where development keys are kept (the development identity provider\'s signing key, and KEY_HASH_SECRET or PAYLOAD_ENCRYPTION_KEYS when unset) and, without SMTP_URL, mail.'),
  },
  Storage: {
    DATABASE_URL: z.url().default('postgres://localhost:5432/domains').describe('The PostgreSQL database.'),
    REDIS_URL: z.url().default('redis://127.0.0.1:6379').describe('Redis: rate limits, dashboard sessions, API-key caches and the development identity provider\'s state.'),
    REDIS_SENTINELS: hostPorts.optional()
      .describe('Redis Sentinels (`host:port,host:port`) to ask for the current master of REDIS_SENTINEL_NAME, following each failover (docs/operations.md, Production topology); REDIS_URL then gives only the password and database. Unset: REDIS_URL\'s host.'),
    REDIS_SENTINEL_NAME: z.string().min(1).default('domains').describe('The master name the Sentinels monitor (`sentinel monitor <name> …`); read only with REDIS_SENTINELS.'),
  },
  Temporal: {
    TEMPORAL_ADDRESS: optionalString
      .describe('The Temporal frontend (`host:port`). Unset: `npm run dev` starts a local server; other commands use `127.0.0.1:7233`.'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('The Temporal namespace.'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('domains')
      .describe('The task queue; it also names this deployment\'s schedules, so another deployment on the same namespace needs its own.'),
    TEMPORAL_CLI_PATH: optionalString.describe('The Temporal CLI that `npm run dev` and the tests start; unset: `temporal` on `PATH`, then the cache `npm run temporal-cli` builds.'),
    TEMPORAL_METRICS_PORT: port.optional()
      .describe('Where the Temporal SDK serves its own Prometheus metrics from a worker (or `npm run dev`), on METRICS_HOST; `9465` is usual. Unset: none.'),
  },
  // The worker's concurrency (src/worker/worker.ts).
  Worker: {
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(40)
      .describe('Workflow tasks one worker process runs at once (the SDK\'s default); a worker whose CPU is not busy while tasks wait can take more.'),
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100).describe('Activities one worker process runs at once.'),
    WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100).describe('Local activities one worker process runs at once.'),
    // The SDK would size it from the heap (about 2,300 on a 4 GB heap), and a domain's lifecycle idles
    // for days between tasks: such a cache fills with them at about 300 KB each (docs/bench.md).
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(1_000_000).optional()
      .describe(`Workflows kept in memory between their tasks; one evicted replays its history at its next task (\`0\`: every task). About 300 KB each; at least WORKER_MAX_CONCURRENT_WORKFLOW_TASKS. Unset: ${DEFAULT_CACHED_WORKFLOWS}, or WORKER_MAX_CONCURRENT_WORKFLOW_TASKS when that is more.`),
    WORKER_WORKFLOW_POLLERS: z.coerce.number().int().min(2).max(1_000).default(10).describe('The most long polls one worker keeps open for workflow tasks.'),
    WORKER_ACTIVITY_POLLERS: z.coerce.number().int().min(1).max(1_000).default(10).describe('The most long polls one worker keeps open for activity tasks.'),
    WORKER_POLLER_AUTOSCALING: onOff
      .describe('`on`: polls grow toward those maxima while tasks keep coming and shrink when idle; `off`: always the maximum.'),
    WORKFLOW_BUNDLE: optionalString
      // Checked with the rest of the configuration, so a worker refuses at once rather than after connecting.
      .refine((file) => file === undefined || existsSync(path.resolve(file)), { error: (issue) => `no file at ${path.resolve(String(issue.input))} (npm run build writes dist/workflow-bundle.js)` })
      .describe('The workflows bundled ahead (`npm run build` writes `dist/workflow-bundle.js`; the image sets this to it): a worker loads the file instead of bundling at every start, about 10 s of CPU. It must come from the build the worker runs. Unset: bundled at start.'),
  },
  'Identity and dashboard': {
    AUTH_ISSUER: optionalString.meta({
      ...REQUIRED_IN_PRODUCTION,
      description: 'The OpenID Connect issuer that signs users\' tokens (with AUTH_AUDIENCE). Unset: the development identity provider at `/dev/oidc`, which signs in anyone, so it serves loopback only.',
    }),
    AUTH_AUDIENCE: optionalString.meta({ ...REQUIRED_IN_PRODUCTION, description: 'The audience tokens must carry; required with AUTH_ISSUER.' }),
    AUTH_JWKS_URL: optionalUrl.describe('The issuer\'s signing keys; unset: found by OpenID discovery at AUTH_ISSUER.'),
    AUTH_CLIENT_ID: optionalString
      .describe('The dashboard\'s OpenID client (redirect URI `<PUBLIC_URL>/dashboard/callback`). Unset: the development provider\'s own client, or no dashboard sign-in with an external provider.'),
    AUTH_CLIENT_SECRET: optionalString.describe('That client\'s secret (a confidential client); needs AUTH_CLIENT_ID.'),
    AUTH_DEVICE_CLIENT_ID: optionalString
      .describe('The public OpenID client the command line signs in with (`domain-service login`: the device authorization grant, RFC 8628, with refresh tokens). Unset: the development provider\'s own, or no device sign-in with an external provider (the command line then takes an API key).'),
    PUBLIC_URL: origins.optional()
      .describe('The dashboard\'s origin as browsers see it (its sign-in redirect and CSRF origin); unset: the api\'s listening address. Required in production with AUTH_CLIENT_ID.'),
    DASHBOARD_ORIGINS: origins.prefault('').describe('More origins the dashboard may be opened at (comma-separated), e.g. a front-end dev server.'),
    DASHBOARD_SESSION_IDLE: duration.prefault('12h').describe('A dashboard session ends after this long unused.'),
    DASHBOARD_SESSION_MAX: duration.prefault('7d').describe('A dashboard session ends this long after sign-in, however used.'),
    DASHBOARD_DIST_DIR: z.string().min(1).default('dashboard/dist').describe('The built front end.'),
    DEV_IDP_BEHIND_LOOPBACK: flag.meta({
      ...TRUE_REFUSED_IN_PRODUCTION,
      description: '`true` lets the development identity provider serve a non-loopback HOST: only for a container whose port is published on the host\'s loopback (the compose development profile).',
    }),
  },
  Secrets: {
    KEY_HASH_SECRET: z.string().min(32, 'must be at least 32 characters').optional().meta({
      ...REQUIRED_IN_PRODUCTION,
      description: 'The HMAC secret of stored API-key hashes, 32 characters or more (`openssl rand -hex 32`); changing it revokes every key. Unset: a random one kept in DATA_DIR.',
    }),
    PAYLOAD_ENCRYPTION_KEYS: payloadKeys.optional().meta({
      ...REQUIRED_IN_PRODUCTION,
      description: 'Temporal payload encryption, `id:base64key[,id:base64key…]` of 32-byte keys (`k1:$(openssl rand -base64 32)`): the first encrypts, all decrypt (to rotate, put the new key first). Api, worker and codec server need the same list. Unset: a random one kept in DATA_DIR.',
    }),
  },
  'Codec server': {
    CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1')
      .describe('Where the codec server listens. It decrypts payloads for whoever reaches it: a non-loopback host is refused unless CODEC_SERVER_ALLOW_REMOTE and CODEC_SERVER_TOKEN are set.'),
    CODEC_SERVER_PORT: port.default(8889).describe('The codec server\'s port (8889: 8888 is the external-dns sidecar\'s, docs/external-dns.md).'),
    CODEC_SERVER_ALLOW_REMOTE: flag.describe('`true` accepts a non-loopback CODEC_SERVER_HOST: only behind your own access control.'),
    CODEC_SERVER_CORS_ORIGINS: origins.prefault('http://localhost:8233,http://127.0.0.1:8233').describe('The Temporal Web UI origins allowed to call it.'),
    CODEC_SERVER_TOKEN: z.string().min(32, 'must be at least 32 characters, such as $(openssl rand -base64 32)').optional()
      .describe('The secret every encode and decode must present, as `Authorization: Bearer …` or by signing in at `/session` (32 characters or more, `openssl rand -hex 32`); required beyond loopback. Unset: the loopback-only codec server asks nothing.'),
  },
  'external-dns webhook': {
    EXTERNAL_DNS_WEBHOOK_API_URL: optionalUrl
      .describe('The api the external-dns webhook provider (`--role external-dns-webhook`, docs/external-dns.md) calls, e.g. `https://domains.example.com`; required for that role, read by no other.'),
    EXTERNAL_DNS_WEBHOOK_API_KEY: z.string().regex(/^svc_(live|test)_[0-9A-Za-z]{38}$/, 'must be an API key (svc_live_… or svc_test_…)').optional()
      .describe('The API key it acts with, from a Secret: `svc_live_…` (a test key changes only test-mode records), scopes `domains:read`, `dns:read` and `dns:write`; a key restricted with `allowed_domains` offers external-dns only those domains, one restricted with `allowed_records` needs EXTERNAL_DNS_WEBHOOK_ZONES and changes only the records its patterns match. Required for that role.'),
    EXTERNAL_DNS_WEBHOOK_ORG: z.string().regex(/^org_[0-9A-Za-z]+$/, 'must be an organisation id (org_…)').optional()
      .describe('The organisation whose active domains it offers external-dns as zones; required for that role.'),
    EXTERNAL_DNS_WEBHOOK_ZONES: z.string().default('')
      .transform((value) => value.split(',').map((zone) => zone.trim().toLowerCase().replace(/\.$/, '')).filter((zone) => zone !== ''))
      .describe('Comma-separated domains to offer external-dns as zones instead of listing the organisation\'s domains: needed for a key restricted with `allowed_records` (such a key may read the records of the domains its patterns name, not the list of domains); a zone the key may not touch is left out as with any restriction. Empty: every active domain the key may touch.'),
    EXTERNAL_DNS_WEBHOOK_HOST: z.string().min(1).default('127.0.0.1')
      .describe('Where it serves external-dns. Whoever reaches it changes DNS with the key, so a non-loopback host is refused unless EXTERNAL_DNS_WEBHOOK_ALLOW_REMOTE: run it as a sidecar of external-dns.'),
    EXTERNAL_DNS_WEBHOOK_PORT: port.default(8888).describe('Its port (external-dns\'s `--webhook-provider-url` default is `http://localhost:8888`).'),
    EXTERNAL_DNS_WEBHOOK_ALLOW_REMOTE: flag.describe('`true` accepts a non-loopback EXTERNAL_DNS_WEBHOOK_HOST: only behind your own access control.'),
    EXTERNAL_DNS_WEBHOOK_HEALTH_HOST: z.string().min(1).default('0.0.0.0')
      .describe('Where `/healthz` is served, on a port of its own: every interface by default, so the kubelet\'s probes reach it; it answers only whether the process is up.'),
    EXTERNAL_DNS_WEBHOOK_HEALTH_PORT: port.default(8081).describe('The `/healthz` port: 8081, beside the api\'s 8080 on one machine; set 8080 under the external-dns chart, whose probes ask its `http-webhook` port 8080 (docs/external-dns.md).'),
    EXTERNAL_DNS_WEBHOOK_DEADLINE: duration.prefault('12s')
      .describe('How long it works on one request from external-dns, every api call included, before answering 503; below external-dns\'s own timeout (`--webhook-provider-read-timeout` plus `--webhook-provider-write-timeout`, 15 s by default).'),
  },
  Registrar: {
    REGISTRAR_URL: optionalUrl.describe('The registrar\'s API; unset: live registrar calls answer 503 `UPSTREAM_UNAVAILABLE`.'),
    REGISTRAR_ACCOUNT: optionalString.describe('The registrar account.'),
    REGISTRAR_TOKEN: optionalString.describe('The registrar API token.'),
    REGISTRAR_TIMEOUT: duration.prefault('15s').describe('Timeout of a registrar read.'),
    REGISTRAR_PAID_TIMEOUT: duration.prefault('45s').describe('Timeout of a registration, renewal or transfer POST.'),
    REGISTRAR_POLL_INTERVAL: duration.prefault('10m').describe('How often pending live work is checked.'),
    REGISTRAR_TRANSFER_POLL_INTERVAL: duration.prefault('6h').describe('How often a pending live transfer is checked.'),
    REGISTRAR_SETTLE_DELAY: duration.prefault('2m').describe('After an unknown outcome, how long before the registrar\'s state is read again.'),
    REGISTRAR_TRANSFER_TIMEOUT: duration.prefault('14d')
      .describe('A live transfer not completed by then is cancelled at the registrar and fails `TRANSFER_TIMED_OUT`, its funds released (test mode: 10 minutes).'),
    REGISTRAR_CHECK_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60)
      .describe('Live availability checks sent to the registrar per minute, all processes together.'),
    REGISTRAR_RECONCILE_INTERVAL: duration.prefault('1d').describe('How often our live domains are compared with the registrar account\'s list.'),
    OPERATION_RECONCILE_INTERVAL: duration.prefault('1m').describe('How often pending operations that no workflow took are looked for.'),
    OPERATION_RECONCILE_GRACE: duration.prefault('2m').describe('How old a pending operation must be before it is taken up.'),
  },
  'DNS, mail and leak scanning': {
    DNS_PROVIDER_URL: optionalUrl.describe('The DNS provider (PowerDNS) API for live zones; unset: live DNS calls answer 503 (test mode has DNS_TEST_PROVIDER_URL).'),
    DNS_PROVIDER_TOKEN: optionalString.describe('The DNS provider\'s API key.'),
    DNS_TEST_PROVIDER_URL: optionalUrl.describe(
      'A second PowerDNS API for test-mode zones (`npm run dev` starts one when PowerDNS is installed): test-mode records, ALIAS and DNSSEC signatures are then served over DNS, one zone per name (docs/api-guide.md, DNS). Never the live one: test names may equal live names. Unset: test-mode DNS is synthetic, served by no one.',
    ),
    DNS_TEST_PROVIDER_TOKEN: optionalString.describe('The test-mode DNS provider\'s API key.'),
    RECORD_CHANGES_PER_MINUTE_PER_ORG: z.coerce.number().int().min(1).max(100_000_000).default(20_000)
      .describe('DNS records one organisation\'s batches and zone imports may create, change or delete a minute in each mode, every key and member together, on the free plan (twice a free zone\'s 10,000, so a whole zone may be replaced at once); times the plan and RATE_LIMIT_SCALE. Past it, 429 `RATE_LIMITED` before anything changes: one tenant\'s bulk edits take a bounded share of the DNS host and the database.'),
    ACME_DNS_ZONE: z
      .string()
      .transform((value, ctx) => {
        const name = value.trim().toLowerCase().replace(/\.$/, '');
        if (!/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(name) || name.length > 253) {
          ctx.addIssue({ code: 'custom', message: 'must be a DNS zone name such as acme-dns.example.net' });
          return z.NEVER;
        }
        return name;
      })
      .optional()
      .describe(
        'The zone the ACME-DNS API hands out names in (`<subdomain>.<zone>`), served by the live DNS provider (created there when missing) and delegated to it by you; a name of your own no customer can register (docs/certificates.md). Unset: ACME-DNS registration and updates answer 404.',
      ),
    ACME_DNS_NAMESERVERS: z
      .string()
      .transform((value) => value.split(',').map((host) => host.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean))
      .optional()
      .describe('Comma-separated host names of the name servers ACME_DNS_ZONE is delegated to, set as its NS records when the service creates the zone (`ns1.example.net,ns2.example.net`).'),
    ACME_DNS_ZONE_UPDATES_PER_SECOND: z.coerce.number().int().min(4).max(100_000).default(50)
      .describe('The most ACME-DNS updates a second that change ACME_DNS_ZONE at its DNS host, every organisation together (per mode); free-plan organisations together get a quarter of it (docs/operations.md, ACME-DNS budgets).'),
    DNSSEC_DS_REMOVAL_WAIT: duration.prefault('2d')
      .describe('After turning DNSSEC off has withdrawn a live domain\'s DS at the registrar, how long its zone stays signed before it is unsigned: the parent\'s DS TTL (one day for .com and .net) plus the registry\'s publication delay.'),
    SMTP_URL: optionalUrl.describe('Where mail is sent (`smtp://user:password@host:587`); unset: each message is written to `DATA_DIR/mail/` as an `.eml` file and logged.'),
    MAIL_FORWARDING_HOSTNAME: z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/).default('mx.forwarding.localhost')
      .describe('The mail forwarder\'s host name: the MX target the first e-mail forward of a domain sets, its greeting, and the domain of its SRS addresses (docs/operations.md, E-mail forwarding).'),
    MAIL_FORWARDING_SMTP_PORT: z.coerce.number().int().min(1).max(65_535).default(2525)
      .describe('Where `npm run dev` starts its own Postfix for test-mode e-mail forwards (127.0.0.1); it forwards only to SMTP_URL or the development mailbox (`DATA_DIR/mail/`).'),
    MAIL_FORWARDING_MESSAGES_PER_HOUR: z.coerce.number().int().min(1).max(10_000_000).default(1000)
      .describe('Messages (each accepted recipient counts one) a domain is forwarded an hour on the free plan, scaled by the plan (pro 5×, enterprise 20×); past it Postfix answers 451 and the sender retries.'),
    MAIL_FROM: z.string().min(3).default('Domain Service <no-reply@localhost>').describe('The sender of every mail.'),
    GITHUB_API_URL: z.url().default('https://api.github.com').describe('The GitHub API: code search for leaked keys, and the keys that sign secret-scanning alerts.'),
    GITHUB_TOKEN: optionalString.describe('A GitHub token for those calls (higher rate limits); unset: anonymous.'),
    LEAK_SCAN_INTERVAL: duration.prefault('15m').describe('How often leaked keys are looked for.'),
  },
  Payments: {
    STRIPE_API_KEY: optionalString
      .describe('The Stripe secret key Checkout Sessions are made with; both STRIPE_ variables or neither. Unset: live top-ups are 403 `PAYMENT_REQUIRED_FOR_LIVE_TOP_UP`. Production refuses a test key (`sk_test_…`, `rk_test_…`).'),
    STRIPE_WEBHOOK_SECRET: optionalString
      .describe('The signing secret (`whsec_…`) of the Stripe endpoint `<PUBLIC_URL>/api/v1/billing/stripe/webhook`, in the key\'s mode.'),
    STRIPE_API_BASE: optionalUrl.describe('Another API base for the Stripe library, e.g. `http://127.0.0.1:12111` for stripe-mock; unset: Stripe itself.'),
    STRIPE_RETURN_URL: z.url().default('http://127.0.0.1:8080/dashboard/billing?top_up={TOP_UP_ID}')
      .describe('Where Checkout sends the payer back (`{TOP_UP_ID}` filled in; `checkout=success` or `checkout=cancelled` added).'),
  },
  Observability: {
    METRICS_PORT: port.optional()
      .describe('Where `/metrics` is served, one port per process (every role); `9464` is usual. Unset or `0`: no metrics listener.'),
    METRICS_HOST: z.string().min(1).default('127.0.0.1')
      .describe('Where `/metrics` and the SDK\'s metrics listen; unauthenticated, so widen it only on a network you trust.'),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional()
      .describe('Traces go over OTLP/HTTP to this base URL (`…/v1/traces`); unset: no tracing at all.'),
    OTEL_SERVICE_NAME: z.string().min(1).default('domain-service').describe('The service name traces carry.'),
  },
  Webhooks: {
    WEBHOOK_ALLOW_PRIVATE: flag.meta({
      ...TRUE_REFUSED_IN_PRODUCTION,
      description: '`true` lets webhooks go to `http` URLs and private, loopback and link-local addresses (development and tests).',
    }),
    WEBHOOK_TEST_LOOPBACK: flag.meta({
      ...TRUE_REFUSED_IN_PRODUCTION,
      description: '`true` (as `npm run dev` sets it): test-mode endpoints may be `http` to `localhost` or a loopback address, so a receiver on the developer\'s machine works without a tunnel; live-mode endpoints never.',
    }),
    WEBHOOK_HOST_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600)
      .describe('Deliveries of one organisation to one destination host per minute, all its endpoints and workers together.'),
    EVENT_STREAMS_PER_ORG: z.coerce.number().int().min(1).max(10_000).default(10)
      .describe('Event streams (`GET …/events/stream`, `domain-service webhooks listen`) one organisation may hold open at once in each mode, every api process together, on the free plan; times the plan (pro 5, enterprise 20).'),
    EVENT_STREAMS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(5)
      .describe('Event streams one member may hold open at once in one organisation and mode (within EVENT_STREAMS_PER_ORG), on the free plan; times the plan.'),
    EVENT_STREAM_SLOT_TTL: duration.prefault('60s')
      .describe('How long an event stream\'s place lasts unless renewed (every third of it): the streams of an api process that died stop counting within this.'),
    EVENTS_PER_MINUTE_PER_ORG: z.coerce.number().int().min(1).max(10_000_000).default(300)
      .describe('Events one organisation\'s requests may emit a minute in each mode (a record change, a batch or a zone import is one), every key and member together, on the free plan; times the plan and RATE_LIMIT_SCALE. Past it, 429 `RATE_LIMITED` before anything changes. The service\'s own events (operations ending, expiry notices) are never refused.'),
    WEBHOOK_DELIVERIES_WAITING_PER_ORG: z.coerce.number().int().min(1).max(10_000_000).default(10_000)
      .describe('Webhook deliveries one organisation may have waiting in each mode (handed to delivery, not yet accepted by the endpoint nor given up), on the free plan; times the plan. Past it, requests that emit events are 409 `WEBHOOK_BACKLOG_LIMIT` until endpoints catch up or are disabled.'),
    WEBHOOK_DISPATCHER: onOff
      .describe('`on`: worker starts (re)start the outbox dispatcher; `off` leaves it to the deployment\'s other workers.'),
    WEBHOOK_TIMEOUT: duration.prefault('10s').describe('One delivery attempt, connection to answer.'),
    WEBHOOK_RETRY_INITIAL: duration.prefault('30s').describe('The wait after a first failed attempt, doubled after each failure.'),
    WEBHOOK_RETRY_MAX_INTERVAL: duration.prefault('6h').describe('The longest wait between attempts.'),
    WEBHOOK_RETRY_FOR: duration.prefault('3d').describe('How long attempts at one delivery go on.'),
    WEBHOOK_DISABLE_AFTER: duration.prefault('5d').describe('An endpoint whose every attempt has failed this long is disabled and its owners e-mailed.'),
  },
};

export const envSchema = z
  .object({
    ...configSections['HTTP server'],
    ...configSections.Storage,
    ...configSections.Temporal,
    ...configSections.Worker,
    ...configSections['Identity and dashboard'],
    ...configSections.Secrets,
    ...configSections['Codec server'],
    ...configSections['external-dns webhook'],
    ...configSections.Registrar,
    ...configSections['DNS, mail and leak scanning'],
    ...configSections.Payments,
    ...configSections.Observability,
    ...configSections.Webhooks,
  })
  .superRefine((env, ctx) => {
    // AUTH_JWKS_URL may be left out: the keys are then found by discovery at AUTH_ISSUER.
    const authVars = ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'] as const;
    const authSet = authVars.filter((name) => env[name] !== undefined);
    if (authSet.length > 0) {
      for (const name of (['AUTH_ISSUER', 'AUTH_AUDIENCE'] as const).filter((n) => env[n] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `is required when ${authSet.join(', ')} is set` });
      }
    }
    if (env.AUTH_CLIENT_SECRET !== undefined && env.AUTH_CLIENT_ID === undefined) {
      ctx.addIssue({ code: 'custom', path: ['AUTH_CLIENT_ID'], message: 'is required when AUTH_CLIENT_SECRET is set' });
    }
    if (env.PUBLIC_URL !== undefined && env.PUBLIC_URL.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'must be one origin, such as https://domains.example.com' });
    }
    const cachedWorkflows = env.WORKER_MAX_CACHED_WORKFLOWS;
    if (cachedWorkflows !== undefined && cachedWorkflows > 0 && cachedWorkflows < env.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS) {
      // The SDK would lower the concurrency to the cache's size with only a warning.
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_MAX_CACHED_WORKFLOWS'],
        message: `must be 0 or at least WORKER_MAX_CONCURRENT_WORKFLOW_TASKS (${env.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS}): each workflow task in progress holds its workflow in the cache`,
      });
    }
    if (env.DASHBOARD_SESSION_IDLE > env.DASHBOARD_SESSION_MAX) {
      ctx.addIssue({ code: 'custom', path: ['DASHBOARD_SESSION_IDLE'], message: 'must not be longer than DASHBOARD_SESSION_MAX' });
    }
    if (!env.CODEC_SERVER_ALLOW_REMOTE && !isLoopbackHost(env.CODEC_SERVER_HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['CODEC_SERVER_HOST'],
        message:
          'must be a loopback address (the codec server decrypts any payload for whoever reaches it); ' +
          'set CODEC_SERVER_ALLOW_REMOTE=true only behind your own access control',
      });
    }
    if (env.CODEC_SERVER_TOKEN === undefined && !isLoopbackHost(env.CODEC_SERVER_HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['CODEC_SERVER_TOKEN'],
        message: `is required when the codec server listens beyond loopback (CODEC_SERVER_HOST=${env.CODEC_SERVER_HOST}): whoever reaches it could decrypt every payload`,
      });
    }
    if (env.DEV_IDP_BEHIND_LOOPBACK && env.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['DEV_IDP_BEHIND_LOOPBACK'], message: 'is refused in production (the development identity provider signs a token for any e-mail asked)' });
    }
    if (authSet.length === 0 && env.NODE_ENV !== 'production' && !isLoopbackHost(env.HOST) && !env.DEV_IDP_BEHIND_LOOPBACK) {
      // The development identity provider signs a token for any e-mail asked: never on a network.
      ctx.addIssue({
        code: 'custom',
        path: ['HOST'],
        message: `${env.HOST} is not a loopback address: set AUTH_ISSUER and AUTH_AUDIENCE (the development identity provider only serves 127.0.0.1, ::1 or localhost, or a container published on loopback with DEV_IDP_BEHIND_LOOPBACK=true)`,
      });
    }
    if (env.DNS_TEST_PROVIDER_URL !== undefined && env.DNS_PROVIDER_URL !== undefined && sameApi(env.DNS_TEST_PROVIDER_URL, env.DNS_PROVIDER_URL)) {
      // Test keys would then write into live zones (test names may be live names).
      ctx.addIssue({ code: 'custom', path: ['DNS_TEST_PROVIDER_URL'], message: 'must not be the live DNS provider (DNS_PROVIDER_URL): test-mode zones need a server of their own' });
    }
    if ((env.STRIPE_API_KEY === undefined) !== (env.STRIPE_WEBHOOK_SECRET === undefined)) {
      const missing = env.STRIPE_API_KEY === undefined ? 'STRIPE_API_KEY' : 'STRIPE_WEBHOOK_SECRET';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'is required with the other STRIPE_ variable (both, or neither)' });
    }
    if (env.NODE_ENV === 'production') {
      if (env.PAYLOAD_ENCRYPTION_KEYS === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['PAYLOAD_ENCRYPTION_KEYS'],
          message: 'is required in production (id:base64key of 32 random bytes, e.g. "k1:$(openssl rand -base64 32)")',
        });
      }
      if (authSet.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['AUTH_ISSUER'],
          message: 'is required in production (the development identity provider is refused)',
        });
      }
      if (env.AUTH_CLIENT_ID !== undefined && env.PUBLIC_URL === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['PUBLIC_URL'],
          message: 'is required in production with AUTH_CLIENT_ID (the dashboard\'s origin, e.g. https://domains.example.com: its sign-in redirect URI and CSRF origin)',
        });
      }
      if (env.KEY_HASH_SECRET === undefined) {
        ctx.addIssue({ code: 'custom', path: ['KEY_HASH_SECRET'], message: 'is required in production' });
      }
      if (env.WEBHOOK_ALLOW_PRIVATE) {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_PRIVATE'], message: 'cannot be true in production (webhooks could reach the private network)' });
      }
      if (env.STRIPE_API_KEY && /^(sk|rk)_test_/.test(env.STRIPE_API_KEY)) {
        // A test key's payments are not money, but its webhook would still credit live balances.
        ctx.addIssue({ code: 'custom', path: ['STRIPE_API_KEY'], message: 'is a Stripe test key; production credits live balances, so it needs a live key (sk_live_… or rk_live_…)' });
      }
      if (env.WEBHOOK_TEST_LOOPBACK) {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_TEST_LOOPBACK'], message: 'cannot be true in production (webhooks could reach the api\'s own machine)' });
      }
    }
  });

export type Env = z.output<typeof envSchema>;

const EXTERNAL_DNS_WEBHOOK_REQUIRED = ['EXTERNAL_DNS_WEBHOOK_API_URL', 'EXTERNAL_DNS_WEBHOOK_API_KEY', 'EXTERNAL_DNS_WEBHOOK_ORG'] as const;

/**
 * What `--role external-dns-webhook` reads, and only that: the sidecar beside external-dns is an API
 * client holding none of the api's secrets, so envSchema's production rules are not its business.
 */
export const externalDnsWebhookEnvSchema = z
  .object({
    NODE_ENV: configSections['HTTP server'].NODE_ENV,
    LOG_LEVEL: configSections['HTTP server'].LOG_LEVEL,
    ...configSections['external-dns webhook'],
  })
  .superRefine((env, ctx) => {
    for (const name of EXTERNAL_DNS_WEBHOOK_REQUIRED.filter((n) => env[n] === undefined)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'is required for --role external-dns-webhook' });
    }
    if (!env.EXTERNAL_DNS_WEBHOOK_ALLOW_REMOTE && !isLoopbackHost(env.EXTERNAL_DNS_WEBHOOK_HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['EXTERNAL_DNS_WEBHOOK_HOST'],
        message:
          'must be a loopback address (whoever reaches the webhook changes DNS with its API key); ' +
          'set EXTERNAL_DNS_WEBHOOK_ALLOW_REMOTE=true only behind your own access control',
      });
    }
  });

export type ExternalDnsWebhookEnv = z.output<typeof externalDnsWebhookEnvSchema>;
