import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_DASHBOARD_CLIENT, DEV_DEVICE_CLIENT_ID, loadConfig, loadExternalDnsWebhookConfig } from './config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const KEY_B64 = Buffer.alloc(32, 7).toString('base64');
/** A codec server secret of the length CODEC_SERVER_TOKEN asks for. */
const TOKEN = 'c'.repeat(32);

describe('loadConfig', () => {
  it('applies the documented defaults (docs/configuration.md)', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.databaseUrl).toBe('postgres://localhost:5432/domains');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.temporal).toEqual({ address: undefined, namespace: 'default', taskQueue: 'domains', cliPath: undefined });
    expect(config.auth).toBeUndefined();
    expect(config.github.apiUrl).toBe('https://api.github.com');
    expect(config.leakScanIntervalMs).toBe(15 * 60_000);
    expect(config.dataDir).toBe('.data');
  });

  it('reads REDIS_SENTINELS as host:port pairs with the master name, and refuses anything else (docs/operations.md, Production topology)', () => {
    expect(loadConfig({}).redisSentinel).toBeUndefined();
    expect(loadConfig({ REDIS_SENTINELS: '10.0.0.1:26379, [::1]:26380' }).redisSentinel).toEqual({
      sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '::1', port: 26380 }],
      name: 'domains',
    });
    expect(loadConfig({ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'cache' }).redisSentinel?.name).toBe('cache');
    expect(problems({ REDIS_SENTINELS: '10.0.0.1,10.0.0.2:99999' })).toEqual([expect.stringMatching(/^REDIS_SENTINELS: .*not one: 10\.0\.0\.1, 10\.0\.0\.2:99999/)]);
  });

  it('gives the worker the SDK\'s concurrency and a cache of 500 workflows by default, and reads WORKER_* (docs/configuration.md)', () => {
    expect(loadConfig({}).worker).toEqual({
      maxConcurrentWorkflowTasks: 40,
      maxConcurrentActivities: 100,
      maxConcurrentLocalActivities: 100,
      maxCachedWorkflows: 500,
      workflowPollers: 10,
      activityPollers: 10,
      pollerAutoscaling: true,
    });
    const tuned = loadConfig({ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '80', WORKER_MAX_CACHED_WORKFLOWS: '0', WORKER_ACTIVITY_POLLERS: '4', WORKER_POLLER_AUTOSCALING: 'off' });
    expect(tuned.worker).toMatchObject({ maxConcurrentWorkflowTasks: 80, maxCachedWorkflows: 0, activityPollers: 4, pollerAutoscaling: false });
    expect(problems({ WORKER_MAX_CACHED_WORKFLOWS: '30' })).toEqual([
      'WORKER_MAX_CACHED_WORKFLOWS: must be 0 or at least WORKER_MAX_CONCURRENT_WORKFLOW_TASKS (40): each workflow task in progress holds its workflow in the cache',
    ]);
    expect(problems({ WORKER_MAX_CACHED_WORKFLOWS: '80', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '80' })).toEqual([]);
    // Unset, the cache follows a concurrency raised past its default rather than refusing it.
    expect(problems({ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '800' })).toEqual([]);
    expect(loadConfig({ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '800' }).worker.maxCachedWorkflows).toBe(800);
    expect(problems({ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1', WORKER_POLLER_AUTOSCALING: 'yes' }).map((p) => p.split(':')[0])).toEqual([
      'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
      'WORKER_POLLER_AUTOSCALING',
    ]);
  });

  it('names each bad variable', () => {
    expect(problems({ PORT: 'eighty', DATABASE_URL: 'not a url', LEAK_SCAN_INTERVAL: 'often' })).toEqual([
      expect.stringMatching(/^PORT: /),
      expect.stringMatching(/^DATABASE_URL: /),
      expect.stringMatching(/^LEAK_SCAN_INTERVAL: must be a duration/),
    ]);
  });

  it('parses durations', () => {
    expect(loadConfig({ LEAK_SCAN_INTERVAL: '30s' }).leakScanIntervalMs).toBe(30_000);
    expect(loadConfig({ LEAK_SCAN_INTERVAL: '2h' }).leakScanIntervalMs).toBe(7_200_000);
    expect(loadConfig({}).registrarReconcileIntervalMs).toBe(86_400_000);
    expect(loadConfig({ REGISTRAR_RECONCILE_INTERVAL: '6h' }).registrarReconcileIntervalMs).toBe(21_600_000);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: '', PORT: '' }).temporal.address).toBeUndefined();
  });

  it('needs the identity-provider variables together', () => {
    expect(problems({ AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json' })).toEqual([
      expect.stringMatching(/^AUTH_ISSUER: is required when AUTH_JWKS_URL is set/),
      expect.stringMatching(/^AUTH_AUDIENCE: /),
    ]);
  });

  it('refuses the development identity provider and missing secrets in production', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual([
      expect.stringMatching(/^PAYLOAD_ENCRYPTION_KEYS: is required in production/),
      expect.stringMatching(/^AUTH_ISSUER: is required in production/),
      expect.stringMatching(/^KEY_HASH_SECRET: is required in production/),
    ]);
    const config = loadConfig({
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'domain-service',
      KEY_HASH_SECRET: 'x'.repeat(32),
      PAYLOAD_ENCRYPTION_KEYS: `k2:${KEY_B64},k1:${Buffer.alloc(32, 1).toString('base64')}`,
    });
    expect(config.payloadEncryptionKeys?.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(config.auth).toEqual({ jwksUrl: 'https://idp.example.com/jwks.json', issuer: 'https://idp.example.com/', audience: 'domain-service' });
  });

  it('refuses webhooks to private addresses in production, and reads the delivery durations', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'domain-service',
      KEY_HASH_SECRET: 'x'.repeat(32),
      PAYLOAD_ENCRYPTION_KEYS: `k1:${KEY_B64}`,
    };
    expect(problems({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' })).toEqual([expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE: cannot be true in production/)]);
    expect(problems({ ...production, WEBHOOK_TEST_LOOPBACK: 'true' })).toEqual([expect.stringMatching(/^WEBHOOK_TEST_LOOPBACK: cannot be true in production/)]);
    expect(loadConfig(production).webhooks).toEqual({
      allowPrivate: false,
      testLoopback: false,
      hostPerMinute: 600,
      dispatcher: true,
      timeoutMs: 10_000,
      initialRetryMs: 30_000,
      maxRetryIntervalMs: 6 * 3_600_000,
      retryForMs: 3 * 86_400_000,
      disableAfterMs: 5 * 86_400_000,
      streamsPerOrg: 10,
      streamsPerUser: 5,
      streamSlotTtlMs: 60_000,
      eventsPerMinutePerOrg: 300,
      deliveriesWaitingPerOrg: 10_000,
    });
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_FOR: '2m' }).webhooks).toMatchObject({ allowPrivate: true, retryForMs: 120_000 });
  });

  it('names what is wrong with each payload encryption key', () => {
    expect(problems({ PAYLOAD_ENCRYPTION_KEYS: `k1:${KEY_B64},k1:${KEY_B64},short:${Buffer.alloc(16).toString('base64')},nokey` })).toEqual([
      'PAYLOAD_ENCRYPTION_KEYS: key id "k1" appears twice',
      expect.stringMatching(/^PAYLOAD_ENCRYPTION_KEYS: key "short" must be 32 bytes in base64/),
      expect.stringMatching(/^PAYLOAD_ENCRYPTION_KEYS: entry 4 must be id:base64key/),
    ]);
  });

  it('keeps the codec server on loopback unless told otherwise, for the local Web UI by default', () => {
    expect(loadConfig({}).codecServer).toEqual({ host: '127.0.0.1', port: 8889, corsOrigins: ['http://localhost:8233', 'http://127.0.0.1:8233'] });
    expect(problems({ CODEC_SERVER_HOST: '0.0.0.0', CODEC_SERVER_TOKEN: TOKEN })).toEqual([expect.stringMatching(/^CODEC_SERVER_HOST: must be a loopback address/)]);
    expect(problems({ CODEC_SERVER_HOST: '10.0.0.5', CODEC_SERVER_TOKEN: TOKEN })).toHaveLength(1);
    expect(loadConfig({ CODEC_SERVER_HOST: '::1' }).codecServer.host).toBe('::1');
    expect(loadConfig({ CODEC_SERVER_HOST: '0.0.0.0', CODEC_SERVER_ALLOW_REMOTE: 'true', CODEC_SERVER_TOKEN: TOKEN }).codecServer).toMatchObject({ host: '0.0.0.0', token: TOKEN });
    expect(problems({ CODEC_SERVER_CORS_ORIGINS: 'https://ui.example.com/path' })).toEqual([expect.stringMatching(/^CODEC_SERVER_CORS_ORIGINS: /)]);
    expect(loadConfig({ CODEC_SERVER_CORS_ORIGINS: 'https://ui.example.com, http://localhost:8080' }).codecServer.corsOrigins).toEqual([
      'https://ui.example.com',
      'http://localhost:8080',
    ]);
  });

  it('refuses a codec server beyond loopback without the secret its callers must present', () => {
    expect(problems({ CODEC_SERVER_HOST: '0.0.0.0', CODEC_SERVER_ALLOW_REMOTE: 'true' })).toEqual([
      expect.stringMatching(/^CODEC_SERVER_TOKEN: is required when the codec server listens beyond loopback/),
    ]);
    expect(problems({ CODEC_SERVER_TOKEN: 'short' })).toEqual([expect.stringMatching(/^CODEC_SERVER_TOKEN: must be at least 32 characters/)]);
    expect(loadConfig({ CODEC_SERVER_TOKEN: TOKEN }).codecServer.token).toBe(TOKEN);
  });

  it('refuses the development identity provider on any address other than loopback', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.10', 'api.example.com']) {
      expect(problems({ HOST })).toEqual([expect.stringMatching(/^HOST: .*not a loopback address/)]);
      expect(problems({ HOST, NODE_ENV: 'test' })).toEqual([expect.stringMatching(/^HOST: /)]);
    }
    for (const HOST of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(problems({ HOST })).toEqual([]);
    const withProvider = {
      HOST: '0.0.0.0',
      AUTH_JWKS_URL: 'https://idp.example.com/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'domain-service',
    };
    expect(loadConfig(withProvider).http.host).toBe('0.0.0.0');
  });

  it('takes a test-mode DNS host of its own, never the live one', () => {
    expect(loadConfig({}).dnsTestProvider).toBeUndefined();
    const config = loadConfig({ DNS_PROVIDER_URL: 'http://127.0.0.1:8081', DNS_TEST_PROVIDER_URL: 'http://127.0.0.1:5301', DNS_TEST_PROVIDER_TOKEN: 't' });
    expect(config.dnsTestProvider).toEqual({ url: 'http://127.0.0.1:5301', token: 't' });
    for (const same of ['http://127.0.0.1:8081', 'http://127.0.0.1:8081/', 'http://127.0.0.1:8081/api/v1']) {
      expect(problems({ DNS_PROVIDER_URL: 'http://127.0.0.1:8081', DNS_TEST_PROVIDER_URL: same })).toEqual([
        'DNS_TEST_PROVIDER_URL: must not be the live DNS provider (DNS_PROVIDER_URL): test-mode zones need a server of their own',
      ]);
    }
  });

  it('reads the HTTP timeouts, 30 s, 10 s and 65 s idle by default', () => {
    expect(loadConfig({}).httpTimeouts).toEqual({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 65_000 });
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT: '5s', HTTP_HEADERS_TIMEOUT: '2s', HTTP_KEEP_ALIVE_TIMEOUT: '2m' }).httpTimeouts).toEqual({
      requestTimeoutMs: 5_000,
      headersTimeoutMs: 2_000,
      keepAliveTimeoutMs: 120_000,
    });
  });

  it('scales rate limits by RATE_LIMIT_SCALE, 1 by default, and refuses anything but a positive number', () => {
    expect(loadConfig({}).rateLimitScale).toBe(1);
    expect(loadConfig({ RATE_LIMIT_SCALE: '0.5' }).rateLimitScale).toBe(0.5);
    expect(loadConfig({ RATE_LIMIT_SCALE: '1000' }).rateLimitScale).toBe(1000);
    for (const bad of ['0', '-2', 'lots', 'Infinity']) {
      expect(problems({ RATE_LIMIT_SCALE: bad })).toEqual([expect.stringMatching(/^RATE_LIMIT_SCALE: /)]);
    }
  });

  it('serves metrics only when METRICS_PORT is set and not 0, on loopback by default', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '0' }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(problems({ METRICS_PORT: 'ninety' })).toEqual([expect.stringMatching(/^METRICS_PORT: /)]);
    expect(problems({ METRICS_PORT: '70000' })).toEqual([expect.stringMatching(/^METRICS_PORT: /)]);
  });

  it('gives the command line a device sign-in client: the development provider\'s, or AUTH_DEVICE_CLIENT_ID with an external one', () => {
    expect(loadConfig({}).deviceClientId).toBe(DEV_DEVICE_CLIENT_ID);
    const external = { AUTH_ISSUER: 'https://idp.example.com/', AUTH_AUDIENCE: 'domain-service' };
    expect(loadConfig(external).deviceClientId).toBeUndefined();
    expect(loadConfig({ ...external, AUTH_DEVICE_CLIENT_ID: 'cli' }).deviceClientId).toBe('cli');
  });

  it('gives the dashboard the development provider\'s client, 12 h idle and 7 days in all by default', () => {
    expect(loadConfig({}).dashboard).toEqual({
      client: DEV_DASHBOARD_CLIENT,
      publicUrl: undefined,
      extraOrigins: [],
      idleMs: 12 * 3_600_000,
      absoluteMs: 7 * 86_400_000,
      distDir: 'dashboard/dist',
    });
    expect(loadConfig({ DASHBOARD_SESSION_IDLE: '2s', DASHBOARD_SESSION_MAX: '5s' }).dashboard).toMatchObject({ idleMs: 2_000, absoluteMs: 5_000 });
    expect(problems({ DASHBOARD_SESSION_IDLE: '8d' })).toEqual([expect.stringMatching(/^DASHBOARD_SESSION_IDLE: must not be longer than DASHBOARD_SESSION_MAX/)]);
  });

  it('takes a standard provider by AUTH_ISSUER and AUTH_AUDIENCE, its keys found by discovery', () => {
    const external = { AUTH_ISSUER: 'https://sso.example.com/realms/acme', AUTH_AUDIENCE: 'domain-service' };
    expect(loadConfig(external).auth).toEqual({ jwksUrl: undefined, issuer: external.AUTH_ISSUER, audience: 'domain-service' });
    // Without a client of its own the dashboard cannot sign anyone in; the API works regardless.
    expect(loadConfig(external).dashboard.client).toBeUndefined();
    const withClient = loadConfig({ ...external, AUTH_CLIENT_ID: 'domain-dashboard', AUTH_CLIENT_SECRET: 's3cret', PUBLIC_URL: 'https://domains.example.com' });
    expect(withClient.dashboard).toMatchObject({ client: { id: 'domain-dashboard', secret: 's3cret' }, publicUrl: 'https://domains.example.com' });
    expect(loadConfig({ ...external, AUTH_CLIENT_ID: 'public-client' }).dashboard.client).toEqual({ id: 'public-client', secret: undefined });
    expect(problems({ AUTH_ISSUER: external.AUTH_ISSUER })).toEqual([expect.stringMatching(/^AUTH_AUDIENCE: is required when AUTH_ISSUER is set/)]);
    expect(problems({ AUTH_CLIENT_SECRET: 's3cret' })).toEqual([expect.stringMatching(/^AUTH_CLIENT_ID: is required when AUTH_CLIENT_SECRET is set/)]);
    expect(problems({ PUBLIC_URL: 'https://domains.example.com/dashboard' })).toEqual([expect.stringMatching(/^PUBLIC_URL: /)]);
    expect(problems({ DASHBOARD_ORIGINS: 'http://localhost:5173, http://localhost:5173/x' })).toEqual([expect.stringMatching(/^DASHBOARD_ORIGINS: /)]);
  });

  it('refuses a Stripe test key in production, and takes one elsewhere', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_ISSUER: 'https://sso.example.com/realms/acme',
      AUTH_AUDIENCE: 'domain-service',
      KEY_HASH_SECRET: 'x'.repeat(32),
      PAYLOAD_ENCRYPTION_KEYS: `k1:${KEY_B64}`,
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
    };
    for (const key of ['sk_test_51Example', 'rk_test_51Example']) {
      expect(problems({ ...production, STRIPE_API_KEY: key })).toEqual([expect.stringMatching(/^STRIPE_API_KEY: is a Stripe test key; production credits live balances/)]);
    }
    expect(loadConfig({ ...production, STRIPE_API_KEY: 'rk_live_51Example' }).stripe?.apiKey).toBe('rk_live_51Example');
    expect(loadConfig({ STRIPE_API_KEY: 'sk_test_51Example', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).stripe?.apiKey).toBe('sk_test_51Example');
  });

  it('needs PUBLIC_URL in production when the dashboard has a client', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_ISSUER: 'https://sso.example.com/realms/acme',
      AUTH_AUDIENCE: 'domain-service',
      AUTH_CLIENT_ID: 'domain-dashboard',
      AUTH_CLIENT_SECRET: 's3cret',
      KEY_HASH_SECRET: 'x'.repeat(32),
      PAYLOAD_ENCRYPTION_KEYS: `k1:${KEY_B64}`,
    };
    expect(problems(production)).toEqual([expect.stringMatching(/^PUBLIC_URL: is required in production with AUTH_CLIENT_ID/)]);
    expect(loadConfig({ ...production, PUBLIC_URL: 'https://domains.example.com' }).dashboard.publicUrl).toBe('https://domains.example.com');
  });
});

describe('loadExternalDnsWebhookConfig (docs/external-dns.md)', () => {
  const sidecar = {
    EXTERNAL_DNS_WEBHOOK_API_URL: 'https://domains.example.com',
    EXTERNAL_DNS_WEBHOOK_API_KEY: `svc_live_${'a'.repeat(38)}`,
    EXTERNAL_DNS_WEBHOOK_ORG: 'org_abc123',
  };
  const refusals = (env: Record<string, string>) => {
    try {
      loadExternalDnsWebhookConfig(env);
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  it('listens, by default, on ports npm run dev leaves free (its api, codec server, Temporal and dashboard), so one can try it beside the other', () => {
    const dev = loadConfig({});
    const devPorts = [dev.http.port, dev.codecServer.port, 7233, 8233, 5173];
    const own = loadExternalDnsWebhookConfig(sidecar);
    expect([own.webhook.port, own.health.port].filter((port) => devPorts.includes(port))).toEqual([]);
  });

  it('reads only its own variables: a production sidecar needs none of the api\'s secrets', () => {
    expect(loadExternalDnsWebhookConfig({ ...sidecar, NODE_ENV: 'production' })).toEqual({
      env: 'production',
      logLevel: 'info',
      api: { url: 'https://domains.example.com', key: sidecar.EXTERNAL_DNS_WEBHOOK_API_KEY, orgId: 'org_abc123', zones: [] },
      webhook: { host: '127.0.0.1', port: 8888 },
      health: { host: '0.0.0.0', port: 8081 },
      deadlineMs: 12_000,
    });
  });

  it('needs the api, the key and the organisation, and serves external-dns on loopback unless told otherwise', () => {
    expect(refusals({})).toEqual([
      'EXTERNAL_DNS_WEBHOOK_API_URL: is required for --role external-dns-webhook',
      'EXTERNAL_DNS_WEBHOOK_API_KEY: is required for --role external-dns-webhook',
      'EXTERNAL_DNS_WEBHOOK_ORG: is required for --role external-dns-webhook',
    ]);
    expect(refusals({ ...sidecar, EXTERNAL_DNS_WEBHOOK_API_KEY: 'svc_live_short' })).toEqual(['EXTERNAL_DNS_WEBHOOK_API_KEY: must be an API key (svc_live_… or svc_test_…)']);
    expect(refusals({ ...sidecar, EXTERNAL_DNS_WEBHOOK_HOST: '0.0.0.0' })).toEqual([expect.stringMatching(/^EXTERNAL_DNS_WEBHOOK_HOST: must be a loopback address/)]);
    expect(loadExternalDnsWebhookConfig({ ...sidecar, EXTERNAL_DNS_WEBHOOK_HOST: '0.0.0.0', EXTERNAL_DNS_WEBHOOK_ALLOW_REMOTE: 'true' }).webhook.host).toBe('0.0.0.0');
  });
});
