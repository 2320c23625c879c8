import path from 'node:path';
import type { z } from 'zod';
import { DEFAULT_CACHED_WORKFLOWS, envSchema, externalDnsWebhookEnvSchema, type Env } from './configSchema.js';

/** The configuration the code reads: the environment (src/configSchema.ts, docs/configuration.md) regrouped. */
export type Config = ReturnType<typeof toConfig>;

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

/** The development provider's public client for the command line's device sign-in (src/auth/dev/oidcProvider.ts). */
export const DEV_DEVICE_CLIENT_ID = 'domain-service-cli';

function deviceClientId(env: Env): string | undefined {
  return env.AUTH_DEVICE_CLIENT_ID ?? (env.AUTH_ISSUER === undefined ? DEV_DEVICE_CLIENT_ID : undefined);
}

function dashboardClient(env: Env): { id: string; secret: string | undefined } | undefined {
  if (env.AUTH_CLIENT_ID !== undefined) return { id: env.AUTH_CLIENT_ID, secret: env.AUTH_CLIENT_SECRET };
  return env.AUTH_ISSUER === undefined ? DEV_DASHBOARD_CLIENT : undefined;
}

/** The environment validated by `schema`; throws ConfigError naming every bad variable. */
function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv): z.output<S> {
  // An empty variable means "not set", as most deployment tools write it.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  return toConfig(parseEnv(envSchema, source));
}

export type ExternalDnsWebhookConfig = ReturnType<typeof loadExternalDnsWebhookConfig>;

/** The configuration of `--role external-dns-webhook` (docs/external-dns.md), which reads nothing else. */
export function loadExternalDnsWebhookConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(externalDnsWebhookEnvSchema, source);
  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    // The schema's refinement requires these three for this role.
    api: { url: env.EXTERNAL_DNS_WEBHOOK_API_URL!, key: env.EXTERNAL_DNS_WEBHOOK_API_KEY!, orgId: env.EXTERNAL_DNS_WEBHOOK_ORG!, zones: env.EXTERNAL_DNS_WEBHOOK_ZONES },
    webhook: { host: env.EXTERNAL_DNS_WEBHOOK_HOST, port: env.EXTERNAL_DNS_WEBHOOK_PORT },
    health: { host: env.EXTERNAL_DNS_WEBHOOK_HEALTH_HOST, port: env.EXTERNAL_DNS_WEBHOOK_HEALTH_PORT },
    deadlineMs: env.EXTERNAL_DNS_WEBHOOK_DEADLINE,
  };
}

/** Regroups the validated environment into the shape the code reads. */
function toConfig(env: Env) {
  return {
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT },
    httpTimeouts: { requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT, headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT, keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT },
    logLevel: env.LOG_LEVEL,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisSentinel: env.REDIS_SENTINELS ? { sentinels: env.REDIS_SENTINELS, name: env.REDIS_SENTINEL_NAME } : undefined,
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
      // A cache below the concurrency would make the SDK lower the concurrency: the default follows it.
      maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS ?? Math.max(DEFAULT_CACHED_WORKFLOWS, env.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS),
      workflowPollers: env.WORKER_WORKFLOW_POLLERS,
      activityPollers: env.WORKER_ACTIVITY_POLLERS,
      pollerAutoscaling: env.WORKER_POLLER_AUTOSCALING === 'on',
      /** Absolute, resolved as the schema checked it: against the directory the process started in. */
      bundle: env.WORKFLOW_BUNDLE && path.resolve(env.WORKFLOW_BUNDLE),
    },
    /** Absent: the development identity provider signs and verifies session JWTs. */
    auth:
      env.AUTH_ISSUER && env.AUTH_AUDIENCE
        ? { jwksUrl: env.AUTH_JWKS_URL, issuer: env.AUTH_ISSUER, audience: env.AUTH_AUDIENCE }
        : undefined,
    /** Absent: the command line cannot sign in with the device grant (an external provider without AUTH_DEVICE_CLIENT_ID). */
    deviceClientId: deviceClientId(env),
    /** `client` absent: dashboard sign-in is off (an external provider without AUTH_CLIENT_ID). */
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
    /** Absent: test-mode DNS is synthetic (src/features/dns/provider/synthetic.ts). */
    dnsTestProvider: env.DNS_TEST_PROVIDER_URL ? { url: env.DNS_TEST_PROVIDER_URL, token: env.DNS_TEST_PROVIDER_TOKEN } : undefined,
    dnssec: { dsRemovalWaitMs: env.DNSSEC_DS_REMOVAL_WAIT },
    recordChangesPerMinutePerOrg: env.RECORD_CHANGES_PER_MINUTE_PER_ORG,
    /** Absent: no ACME-DNS (src/features/acmeDns/). */
    acmeDns: env.ACME_DNS_ZONE
      ? { zone: env.ACME_DNS_ZONE, nameservers: env.ACME_DNS_NAMESERVERS ?? [], zoneUpdatesPerSecond: env.ACME_DNS_ZONE_UPDATES_PER_SECOND }
      : undefined,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    mailForwarding: { hostname: env.MAIL_FORWARDING_HOSTNAME, smtpPort: env.MAIL_FORWARDING_SMTP_PORT, messagesPerHour: env.MAIL_FORWARDING_MESSAGES_PER_HOUR },
    github: { apiUrl: env.GITHUB_API_URL, token: env.GITHUB_TOKEN },
    leakScanIntervalMs: env.LEAK_SCAN_INTERVAL,
    operationReconciler: { intervalMs: env.OPERATION_RECONCILE_INTERVAL, graceMs: env.OPERATION_RECONCILE_GRACE },
    registrarReconcileIntervalMs: env.REGISTRAR_RECONCILE_INTERVAL,
    dataDir: env.DATA_DIR,
    registrarCheckPerMinute: env.REGISTRAR_CHECK_PER_MINUTE,
    rateLimitScale: env.RATE_LIMIT_SCALE,
    /** The first key encrypts; all of them decrypt. Absent: a development key in `dataDir`. */
    payloadEncryptionKeys: env.PAYLOAD_ENCRYPTION_KEYS,
    codecServer: { host: env.CODEC_SERVER_HOST, port: env.CODEC_SERVER_PORT, corsOrigins: env.CODEC_SERVER_CORS_ORIGINS, token: env.CODEC_SERVER_TOKEN },
    /** Absent when METRICS_PORT is unset or 0. */
    metrics: env.METRICS_PORT ? { host: env.METRICS_HOST, port: env.METRICS_PORT } : undefined,
    trustProxy: env.TRUST_PROXY ?? [],
    /** Absent: live top-ups are refused. */
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
      streamsPerOrg: env.EVENT_STREAMS_PER_ORG,
      streamsPerUser: env.EVENT_STREAMS_PER_USER,
      streamSlotTtlMs: env.EVENT_STREAM_SLOT_TTL,
      eventsPerMinutePerOrg: env.EVENTS_PER_MINUTE_PER_ORG,
      deliveriesWaitingPerOrg: env.WEBHOOK_DELIVERIES_WAITING_PER_ORG,
    },
  };
}

/** The address of the Temporal frontend this process talks to. */
export function temporalAddress(config: Config): string {
  return config.temporal.address ?? '127.0.0.1:7233';
}
