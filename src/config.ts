import { z } from 'zod';
import { parsePayloadKeys, type PayloadKey } from './temporal/payloadKeys.js';
import { canonicalCidr, parseCidrs, type Cidr } from './http/cidr.js';

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

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === '::ffff:127.0.0.1';
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: z.url().default('postgres://localhost:5432/domains'),
    REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
    TEMPORAL_ADDRESS: optionalString,
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('domains'),
    TEMPORAL_CLI_PATH: optionalString,
    // The worker's concurrency (src/worker/worker.ts); README "Configuration" says when to change them.
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(40),
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100),
    WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100),
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(1_000_000).optional(),
    WORKER_WORKFLOW_POLLERS: z.coerce.number().int().min(2).max(1_000).default(10),
    WORKER_ACTIVITY_POLLERS: z.coerce.number().int().min(1).max(1_000).default(10),
    WORKER_POLLER_AUTOSCALING: z.enum(['on', 'off']).default('on'),
    AUTH_JWKS_URL: optionalUrl,
    AUTH_ISSUER: optionalString,
    AUTH_AUDIENCE: optionalString,
    AUTH_CLIENT_ID: optionalString,
    AUTH_CLIENT_SECRET: optionalString,
    PUBLIC_URL: origins.optional(),
    DASHBOARD_ORIGINS: origins.default([]),
    DASHBOARD_SESSION_IDLE: duration.default(12 * 3_600_000),
    DASHBOARD_SESSION_MAX: duration.default(7 * 86_400_000),
    DASHBOARD_DIST_DIR: z.string().min(1).default('dashboard/dist'),
    KEY_HASH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    REGISTRAR_URL: optionalUrl,
    REGISTRAR_ACCOUNT: optionalString,
    REGISTRAR_TOKEN: optionalString,
    REGISTRAR_TIMEOUT: duration.default(15_000),
    REGISTRAR_PAID_TIMEOUT: duration.default(45_000),
    REGISTRAR_POLL_INTERVAL: duration.default(10 * 60_000),
    REGISTRAR_TRANSFER_POLL_INTERVAL: duration.default(6 * 3_600_000),
    REGISTRAR_SETTLE_DELAY: duration.default(2 * 60_000),
    REGISTRAR_TRANSFER_TIMEOUT: duration.default(14 * 86_400_000),
    DNS_PROVIDER_URL: optionalUrl,
    DNS_PROVIDER_TOKEN: optionalString,
    SMTP_URL: optionalUrl,
    MAIL_FROM: z.string().min(3).default('Domain Service <no-reply@localhost>'),
    GITHUB_API_URL: z.url().default('https://api.github.com'),
    GITHUB_TOKEN: optionalString,
    LEAK_SCAN_INTERVAL: duration.default(15 * 60_000),
    OPERATION_RECONCILE_INTERVAL: duration.default(60_000),
    OPERATION_RECONCILE_GRACE: duration.default(2 * 60_000),
    REGISTRAR_RECONCILE_INTERVAL: duration.default(24 * 3_600_000),
    DATA_DIR: z.string().min(1).default('.data'),
    REGISTRAR_CHECK_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
    // Multiplies every per-key, per-session and per-user limit and burst (a benchmark sets one that never binds).
    RATE_LIMIT_SCALE: z.coerce.number().positive('must be a positive number such as 1, 0.5 or 1000').finite().default(1),
    PAYLOAD_ENCRYPTION_KEYS: z
      .string()
      .transform((value, ctx) => {
        const parsed = parsePayloadKeys(value);
        if ('keys' in parsed) return parsed.keys;
        for (const message of parsed.problems) ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      })
      .optional(),
    CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
    CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8888),
    CODEC_SERVER_ALLOW_REMOTE: flag,
    CODEC_SERVER_CORS_ORIGINS: origins.default(['http://localhost:8233', 'http://127.0.0.1:8233']),
    CODEC_SERVER_TOKEN: z.string().min(32, 'must be at least 32 characters, such as $(openssl rand -base64 32)').optional(),
    HTTP_REQUEST_TIMEOUT: duration.default(30_000),
    HTTP_HEADERS_TIMEOUT: duration.default(10_000),
    // Unset or 0: no metrics listener (tests); 9464 is the usual choice.
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    TRUST_PROXY: cidrList.optional(),
    STRIPE_API_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    STRIPE_API_BASE: optionalUrl,
    STRIPE_RETURN_URL: z.url().default('http://127.0.0.1:8080/dashboard/billing?top_up={TOP_UP_ID}'),
    // The Temporal SDK's own metrics (worker and combined process), on a listener of the SDK's: 9465.
    TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    // Traces go over OTLP/HTTP to this base URL (…/v1/traces); unset: no tracing at all.
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default('domain-service'),
    WEBHOOK_ALLOW_PRIVATE: flag,
    // Set by `npm run dev` (scripts/dev.ts): a receiver on the developer's machine needs no tunnel.
    WEBHOOK_TEST_LOOPBACK: flag,
    WEBHOOK_HOST_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
    WEBHOOK_DISPATCHER: z.enum(['on', 'off']).default('on'),
    WEBHOOK_TIMEOUT: duration.default(10_000),
    WEBHOOK_RETRY_INITIAL: duration.default(30_000),
    WEBHOOK_RETRY_MAX_INTERVAL: duration.default(6 * 3_600_000),
    WEBHOOK_RETRY_FOR: duration.default(3 * 86_400_000),
    WEBHOOK_DISABLE_AFTER: duration.default(5 * 86_400_000),
    // docker-compose.yml's development profile: the api listens on 0.0.0.0 inside its container, and
    // the container's port is published on the host's loopback only (README "Docker Compose").
    DEV_IDP_BEHIND_LOOPBACK: flag,
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

export interface Config {
  env: Env['NODE_ENV'];
  http: { host: string; port: number };
  /** How long a client may take to send headers, and its whole request (`src/http/listen.ts`). */
  httpTimeouts: { requestTimeoutMs: number; headersTimeoutMs: number };
  logLevel: Env['LOG_LEVEL'];
  databaseUrl: string;
  redisUrl: string;
  temporal: { address: string | undefined; namespace: string; taskQueue: string; cliPath: string | undefined };
  /**
   * How much one worker process takes on at once: workflow tasks, activities and local activities
   * run together, workflows kept in memory (absent: the SDK's choice from the heap size), and the
   * most long polls open per kind of task, scaled to the backlog when `pollerAutoscaling`.
   */
  worker: {
    maxConcurrentWorkflowTasks: number;
    maxConcurrentActivities: number;
    maxConcurrentLocalActivities: number;
    maxCachedWorkflows: number | undefined;
    workflowPollers: number;
    activityPollers: number;
    pollerAutoscaling: boolean;
  };
  /**
   * Absent: the development identity provider signs and verifies session JWTs. `jwksUrl` absent:
   * found by OpenID discovery at `issuer`.
   */
  auth: { jwksUrl: string | undefined; issuer: string; audience: string } | undefined;
  /**
   * The dashboard's OpenID client (src/dashboard/). `client` absent: sign-in is off (an external
   * provider without AUTH_CLIENT_ID); with the development provider it defaults to its own client.
   * `publicUrl`: the dashboard's origin as browsers see it; absent, the api's listening address.
   * `extraOrigins`: more origins allowed to call it (a front-end dev server).
   */
  dashboard: {
    client: { id: string; secret: string | undefined } | undefined;
    publicUrl: string | undefined;
    extraOrigins: string[];
    idleMs: number;
    absoluteMs: number;
    distDir: string;
  };
  keyHashSecret: string | undefined;
  registrar: { url: string; account: string | undefined; token: string | undefined } | undefined;
  /**
   * Live registrar timing: request timeouts (reads, paid POSTs), how often pending work is checked,
   * and how long the registrar gets to settle after an answer was lost before its state is read.
   */
  registrarTiming: { timeoutMs: number; paidTimeoutMs: number; pollIntervalMs: number; transferPollIntervalMs: number; settleMs: number; transferTimeoutMs: number };
  dnsProvider: { url: string; token: string | undefined } | undefined;
  mail: { smtpUrl: string | undefined; from: string };
  github: { apiUrl: string; token: string | undefined };
  leakScanIntervalMs: number;
  /** How often the reconciler looks for pending operations that no workflow took, and how old they must be. */
  operationReconciler: { intervalMs: number; graceMs: number };
  /** How often our live domains are compared with the registrar account's list. */
  registrarReconcileIntervalMs: number;
  dataDir: string;
  /** Live availability `check` calls all processes together may send the registrar per minute. */
  registrarCheckPerMinute: number;
  /**
   * Multiplies every per-key, per-session and per-user rate limit and burst (`RATE_LIMIT_SCALE`);
   * not the per-address pools, nor the registrar-wide pace.
   */
  rateLimitScale: number;
  /** The first key encrypts; all of them decrypt. Absent: a development key in `dataDir`. */
  payloadEncryptionKeys: PayloadKey[] | undefined;
  /** `token`: the shared secret every encode and decode must present (required beyond loopback). */
  codecServer: { host: string; port: number; corsOrigins: string[]; token: string | undefined };
  /** Where `/metrics` is served (every role); absent when METRICS_PORT is unset or 0. */
  metrics: { host: string; port: number } | undefined;
  /** The proxies in front of the api, whose `X-Forwarded-For` is believed (src/http/clientAddress.ts); empty: none. */
  trustProxy: Cidr[];
  /**
   * Live top-ups through Stripe Checkout; absent: live top-ups are refused. `apiBase` points the library
   * elsewhere (stripe-mock); `returnUrl` is where Checkout sends the payer back (`{TOP_UP_ID}` filled in).
   */
  stripe: { apiKey: string; webhookSecret: string; apiBase: string | undefined; returnUrl: string } | undefined;
  /** Where the Temporal SDK serves its own Prometheus metrics (the worker's Runtime); TEMPORAL_METRICS_PORT. */
  temporalMetrics: { host: string; port: number } | undefined;
  /** OpenTelemetry traces over OTLP/HTTP; absent (no tracing, no cost) without OTEL_EXPORTER_OTLP_ENDPOINT. */
  tracing: { endpoint: string; serviceName: string } | undefined;
  /**
   * Webhook delivery: `allowPrivate` lets http and private addresses through (development and tests
   * only), `testLoopback` http to loopback for test-mode endpoints (`npm run dev`); the rest are the
   * delivery workflow's durations (src/webhooks/timing.ts); `hostPerMinute` paces the deliveries of one
   * organisation to one host (src/webhooks/pacing.ts).
   */
  webhooks: { allowPrivate: boolean; testLoopback: boolean; hostPerMinute: number; dispatcher: boolean; timeoutMs: number; initialRetryMs: number; maxRetryIntervalMs: number; retryForMs: number; disableAfterMs: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The development provider registers this client for the dashboard (src/auth/dev/oidcProvider.ts).
 * The secret only guards a loopback-only provider that signs in anyone who types an address.
 */
export const DEV_DASHBOARD_CLIENT = { id: 'domain-service-dashboard', secret: 'development-only-dashboard-secret' };

function dashboardClient(env: Env): Config['dashboard']['client'] {
  if (env.AUTH_CLIENT_ID !== undefined) return { id: env.AUTH_CLIENT_ID, secret: env.AUTH_CLIENT_SECRET };
  return env.AUTH_ISSUER === undefined ? DEV_DASHBOARD_CLIENT : undefined;
}

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as most deployment tools write it.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT },
    httpTimeouts: { requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT, headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT },
    logLevel: env.LOG_LEVEL,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      cliPath: env.TEMPORAL_CLI_PATH,
    },
    worker: {
      maxConcurrentWorkflowTasks: env.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivities: env.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentLocalActivities: env.WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES,
      maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
      workflowPollers: env.WORKER_WORKFLOW_POLLERS,
      activityPollers: env.WORKER_ACTIVITY_POLLERS,
      pollerAutoscaling: env.WORKER_POLLER_AUTOSCALING === 'on',
    },
    auth:
      env.AUTH_ISSUER && env.AUTH_AUDIENCE
        ? { jwksUrl: env.AUTH_JWKS_URL, issuer: env.AUTH_ISSUER, audience: env.AUTH_AUDIENCE }
        : undefined,
    dashboard: {
      client: dashboardClient(env),
      publicUrl: env.PUBLIC_URL?.[0],
      extraOrigins: env.DASHBOARD_ORIGINS,
      idleMs: env.DASHBOARD_SESSION_IDLE,
      absoluteMs: env.DASHBOARD_SESSION_MAX,
      distDir: env.DASHBOARD_DIST_DIR,
    },
    keyHashSecret: env.KEY_HASH_SECRET,
    registrar: env.REGISTRAR_URL
      ? { url: env.REGISTRAR_URL, account: env.REGISTRAR_ACCOUNT, token: env.REGISTRAR_TOKEN }
      : undefined,
    registrarTiming: {
      timeoutMs: env.REGISTRAR_TIMEOUT,
      paidTimeoutMs: env.REGISTRAR_PAID_TIMEOUT,
      pollIntervalMs: env.REGISTRAR_POLL_INTERVAL,
      transferPollIntervalMs: env.REGISTRAR_TRANSFER_POLL_INTERVAL,
      settleMs: env.REGISTRAR_SETTLE_DELAY,
      transferTimeoutMs: env.REGISTRAR_TRANSFER_TIMEOUT,
    },
    dnsProvider: env.DNS_PROVIDER_URL ? { url: env.DNS_PROVIDER_URL, token: env.DNS_PROVIDER_TOKEN } : undefined,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    github: { apiUrl: env.GITHUB_API_URL, token: env.GITHUB_TOKEN },
    leakScanIntervalMs: env.LEAK_SCAN_INTERVAL,
    operationReconciler: { intervalMs: env.OPERATION_RECONCILE_INTERVAL, graceMs: env.OPERATION_RECONCILE_GRACE },
    registrarReconcileIntervalMs: env.REGISTRAR_RECONCILE_INTERVAL,
    dataDir: env.DATA_DIR,
    registrarCheckPerMinute: env.REGISTRAR_CHECK_PER_MINUTE,
    rateLimitScale: env.RATE_LIMIT_SCALE,
    payloadEncryptionKeys: env.PAYLOAD_ENCRYPTION_KEYS,
    codecServer: { host: env.CODEC_SERVER_HOST, port: env.CODEC_SERVER_PORT, corsOrigins: env.CODEC_SERVER_CORS_ORIGINS, token: env.CODEC_SERVER_TOKEN },
    metrics: env.METRICS_PORT ? { host: env.METRICS_HOST, port: env.METRICS_PORT } : undefined,
    trustProxy: env.TRUST_PROXY ?? [],
    stripe:
      env.STRIPE_API_KEY && env.STRIPE_WEBHOOK_SECRET
        ? { apiKey: env.STRIPE_API_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, apiBase: env.STRIPE_API_BASE, returnUrl: env.STRIPE_RETURN_URL }
        : undefined,
    temporalMetrics: env.TEMPORAL_METRICS_PORT ? { host: env.METRICS_HOST, port: env.TEMPORAL_METRICS_PORT } : undefined,
    tracing: env.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME } : undefined,
    webhooks: {
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
      testLoopback: env.WEBHOOK_TEST_LOOPBACK,
      hostPerMinute: env.WEBHOOK_HOST_PER_MINUTE,
      dispatcher: env.WEBHOOK_DISPATCHER === 'on',
      timeoutMs: env.WEBHOOK_TIMEOUT,
      initialRetryMs: env.WEBHOOK_RETRY_INITIAL,
      maxRetryIntervalMs: env.WEBHOOK_RETRY_MAX_INTERVAL,
      retryForMs: env.WEBHOOK_RETRY_FOR,
      disableAfterMs: env.WEBHOOK_DISABLE_AFTER,
    },
  };
}

/** The address of the Temporal frontend this process talks to. */
export function temporalAddress(config: Config): string {
  return config.temporal.address ?? '127.0.0.1:7233';
}
