import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { resolveComposeCheck } from '../scripts/lib/composeCheck.js';
import { POWERDNS_MAX_BODY_MB } from '../scripts/lib/powerDnsServer.js';
import { REPO_ROOT } from './support/processes.js';
import { parse as parseYaml } from 'yaml';

/** What customers' secondaries need of it (docs/operations.md, PowerDNS settings). */
const SECONDARY_SETTINGS = ['--primary=yes', '--allow-axfr-ips=', '--outgoing-axfr-expand-alias=yes'];

/** The parts of compose-go's resolved project these tests read. */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: { host_ip?: string; target: number; published: string }[];
  restart?: string;
  profiles?: string[];
}

let loader: string;
let scratch: string;

/** Loads docker-compose.yml as `docker compose` does, with `.env` holding `vars`. */
async function loadCompose(vars: Record<string, string>, profiles = ''): Promise<{ services?: Record<string, Service>; error?: string }> {
  const envFile = path.join(scratch, `env-${Math.random().toString(36).slice(2)}`);
  await writeFile(envFile, Object.entries(vars).map(([k, v]) => `${k}=${v}`).join('\n'));
  const run = spawnSync(loader, ['-file', path.join(REPO_ROOT, 'docker-compose.yml'), '-env-file', envFile, ...(profiles ? ['-profiles', profiles] : [])], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  if (run.status !== 0) return { error: run.stderr };
  return { services: (JSON.parse(run.stdout) as { services: Record<string, Service> }).services };
}

const SECRETS = {
  POSTGRES_PASSWORD: 'pg-secret-1',
  TEMPORAL_DB_PASSWORD: 'temporal-secret-2',
  KEY_HASH_SECRET: 'k'.repeat(40),
  PAYLOAD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  PDNS_API_KEY: 'pdns-secret-3',
  CODEC_SERVER_TOKEN: 'codec-secret-4'.padEnd(40, '4'),
};
const IDENTITY = {
  AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
  AUTH_ISSUER: 'https://idp.example.com/',
  AUTH_AUDIENCE: 'domain-service',
};
const DEVELOPMENT = { NODE_ENV: 'development', DEV_IDP_BEHIND_LOOPBACK: 'true', AUTH_JWKS_URL: '', AUTH_ISSUER: '', AUTH_AUDIENCE: '' };

/** An environment as the process sees it: compose passes empty values through; our config reads them as unset. */
const envOf = (service: Service) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).flatMap(([k, v]) => (v === null || v === '' ? [] : [[k, v]])));

beforeAll(async () => {
  loader = await resolveComposeCheck((line) => console.log(line));
  scratch = await mkdtemp(path.join(os.tmpdir(), 'compose-'));
}, 600_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('docker-compose.yml, read by the real compose loader', () => {
  it('refuses to start without its secrets, naming each one and where to put it', async () => {
    for (const vars of [{}, { ...IDENTITY }, { ...SECRETS, KEY_HASH_SECRET: '' }]) {
      const { error } = await loadCompose(vars);
      expect(error).toMatch(/is not set - copy \.env\.example to \.env and fill it in/);
    }
    const { error } = await loadCompose({ ...IDENTITY });
    for (const name of Object.keys(SECRETS)) expect(error).toContain(name);
    // The shipped example, copied as it is, is refused too: it holds no secret.
    const example = await readFile(path.join(REPO_ROOT, '.env.example'), 'utf8');
    const exampleVars = Object.fromEntries(
      example.split('\n').filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split('=', 2) as [string, string]),
    );
    expect((await loadCompose(exampleVars)).error).toContain('KEY_HASH_SECRET');
  });

  it('refuses to start without an identity provider unless the development block is chosen', async () => {
    const { error } = await loadCompose({ ...SECRETS });
    expect(error).toMatch(/AUTH_ISSUER is not set - fill in the identity-provider block of \.env/);
    expect((await loadCompose({ ...SECRETS, ...DEVELOPMENT })).error).toBeUndefined();
  });

  it('runs production by default: our config accepts api, worker and migrate, with the development identity provider refused', async () => {
    const { services } = await loadCompose({ ...SECRETS, ...IDENTITY });
    for (const name of ['api', 'worker', 'migrate', 'codec-server']) {
      const config = loadConfig(envOf(services![name]!));
      expect(config.env, name).toBe('production');
      expect(config.databaseUrl).toBe('postgres://domains:pg-secret-1@postgres:5432/domains');
      expect(config.temporal.address).toBe('temporal:7233');
      expect(config.auth).toMatchObject({ issuer: IDENTITY.AUTH_ISSUER });
    }
    expect(loadConfig(envOf(services!.api!)).http).toEqual({ host: '0.0.0.0', port: 8080 });
    // The development identity provider cannot be switched on in production.
    expect(() => loadConfig({ ...envOf(services!.api!), DEV_IDP_BEHIND_LOOPBACK: 'true' })).toThrow(/DEV_IDP_BEHIND_LOOPBACK: is refused in production/);
  });

  it('has the whole product: Temporal set up by one-shot admin tools, PowerDNS, the codec server, and development extras in a profile', async () => {
    const production = (await loadCompose({ ...SECRETS, ...IDENTITY })).services!;
    expect(Object.keys(production).sort()).toEqual(
      ['api', 'codec-server', 'migrate', 'postgres', 'powerdns', 'redis', 'temporal', 'temporal-postgres', 'temporal-schema', 'temporal-setup', 'temporal-ui', 'worker'].sort(),
    );
    const development = (await loadCompose({ ...SECRETS, ...DEVELOPMENT }, 'dev')).services!;
    expect(Object.keys(development)).toEqual(expect.arrayContaining(['mailpit', 'stripe-mock']));
    const devApi = loadConfig(envOf(development.api!));
    expect(devApi.env).toBe('development');
    expect(devApi.auth).toBeUndefined();
    expect(production.temporal!.image).toMatch(/^temporalio\/server:/);
    expect(production['temporal-setup']!.image).toMatch(/^temporalio\/admin-tools:/);
    expect(production['temporal-ui']!.environment).toMatchObject({ TEMPORAL_CODEC_ENDPOINT: 'http://localhost:8889', TEMPORAL_CODEC_INCLUDE_CREDENTIALS: 'true' });
    // The codec server listens on the compose network as well: it asks for the secret.
    expect(loadConfig(envOf(production['codec-server']!)).codecServer).toMatchObject({ host: '0.0.0.0', token: SECRETS.CODEC_SERVER_TOKEN });
    expect(production.api!.environment).toMatchObject({ DNS_PROVIDER_URL: 'http://powerdns:8081', DNS_PROVIDER_TOKEN: 'pdns-secret-3' });
    // ALIAS records are answered as their target's addresses, looked up through PDNS_RESOLVER.
    expect(production.powerdns!.command).toEqual(['--expand-alias=yes', '--resolver=1.1.1.1', `--webserver-max-bodysize=${POWERDNS_MAX_BODY_MB}`, ...SECONDARY_SETTINGS]);
    const ownResolver = (await loadCompose({ ...SECRETS, ...IDENTITY, PDNS_RESOLVER: '10.0.0.53:53' })).services!;
    expect(ownResolver.powerdns!.command).toEqual(['--expand-alias=yes', '--resolver=10.0.0.53:53', `--webserver-max-bodysize=${POWERDNS_MAX_BODY_MB}`, ...SECONDARY_SETTINGS]);
  });

  it('starts each service only once what it needs is ready, so nothing boots into an error', async () => {
    const services = (await loadCompose({ ...SECRETS, ...IDENTITY })).services!;
    const appNeeds = {
      migrate: { condition: 'service_completed_successfully' },
      redis: { condition: 'service_healthy' },
      'temporal-setup': { condition: 'service_completed_successfully' },
    };
    for (const name of ['api', 'worker']) expect(services[name]!.depends_on).toMatchObject(appNeeds);
    expect(services.migrate!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    expect(services['temporal-schema']!.depends_on).toMatchObject({ 'temporal-postgres': { condition: 'service_healthy' } });
    expect(services.temporal!.depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-setup']!.depends_on).toMatchObject({ temporal: { condition: 'service_healthy' } });
    // pg_isready over TCP: the socket answers during PostgreSQL's init phase, TCP only once it is up.
    for (const name of ['postgres', 'temporal-postgres']) expect(services[name]!.healthcheck!.test.join(' ')).toContain('-h 127.0.0.1');
    const oneShots = ['migrate', 'temporal-schema', 'temporal-setup'];
    for (const [name, service] of Object.entries(services)) {
      if (oneShots.includes(name)) continue;
      expect(service.healthcheck?.test, name).toBeDefined();
      expect(service.restart, name).toBe('unless-stopped');
    }
    // The one-shot scripts they run are in the repository and create every search attribute we use.
    const setup = await readFile(path.join(REPO_ROOT, 'deploy/temporal/create-namespace.sh'), 'utf8');
    for (const attribute of ['OrgId=Keyword', 'Domain=Keyword', 'Livemode=Bool', 'OperationType=Keyword']) expect(setup).toContain(attribute);
  });

  it('pins every image, builds one image for every process of ours, and keeps ports and passwords closed', async () => {
    const services = (await loadCompose({ ...SECRETS, ...IDENTITY }, 'dev,observability')).services!;
    const ours = ['api', 'worker', 'migrate', 'codec-server'];
    for (const [name, service] of Object.entries(services)) {
      if (ours.includes(name)) continue;
      expect(service.image, name).toMatch(/:[v0-9][^:]*$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
    expect(new Set(ours.map((name) => services[name]!.image)).size).toBe(1);
    expect(ours.filter((name) => services[name]!.build !== undefined)).toEqual(['migrate']);
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) expect(`${name} ${port.host_ip}`).toBe(`${name} 127.0.0.1`);
    }
    const raw = await readFile(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(raw).not.toMatch(/PASSWORD: (?!\$\{)/);
    expect(raw).not.toMatch(/:\/\/[a-z]+:(?!\$\{)[^@\s]+@/);
    expect(await readFile(path.join(REPO_ROOT, '.gitignore'), 'utf8')).toMatch(/^\.env$/m);
  });

  it('adds Prometheus, Grafana and Jaeger in the observability profile, scraping and tracing the api and the worker', async () => {
    const production = (await loadCompose({ ...SECRETS, ...IDENTITY })).services!;
    for (const name of ['prometheus', 'grafana', 'jaeger']) expect(production[name], name).toBeUndefined();
    expect(loadConfig(envOf(production.api!)).tracing).toBeUndefined();

    const services = (await loadCompose({ ...SECRETS, ...IDENTITY, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }, 'observability')).services!;
    expect(services.prometheus!.image).toMatch(/^prom\/prometheus:v\d/);
    expect(services.grafana!.image).toMatch(/^grafana\/grafana:\d/);
    expect(services.jaeger!.image).toMatch(/^jaegertracing\/all-in-one:\d/);
    for (const name of ['prometheus', 'grafana', 'jaeger']) {
      expect(services[name]!.healthcheck?.test, name).toBeDefined();
      expect(services[name]!.restart, name).toBe('unless-stopped');
      for (const port of services[name]!.ports ?? []) expect(`${name} ${port.host_ip}`).toBe(`${name} 127.0.0.1`);
    }
    expect(services.grafana!.depends_on).toMatchObject({ prometheus: { condition: 'service_healthy' } });
    expect(services.prometheus!.ports!.map((p) => p.target)).toEqual([9090]);
    expect(services.jaeger!.ports!.map((p) => p.target).sort((a, b) => a - b)).toEqual([4318, 16686]);

    // Prometheus scrapes the ports our config opens, under the compose service names.
    const api = loadConfig(envOf(services.api!));
    const worker = loadConfig(envOf(services.worker!));
    expect(api.tracing).toEqual({ endpoint: 'http://jaeger:4318', serviceName: 'domain-service' });
    expect(worker.tracing?.endpoint).toBe('http://jaeger:4318');
    const prometheus = parseYaml(await readFile(path.join(REPO_ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = (job: string) => prometheus.scrape_configs.find((c) => c.job_name === job)!.static_configs.flatMap((c) => c.targets);
    expect(targets('domain-service').sort()).toEqual([`api:${api.metrics!.port}`, `worker:${worker.metrics!.port}`]);
    expect(targets('temporal-sdk')).toEqual([`worker:${worker.temporalMetrics!.port}`]);
    expect(api.metrics!.host).toBe('0.0.0.0');
    // The files the services mount are in the repository.
    for (const file of ['deploy/prometheus/alerts.yml', 'deploy/grafana/dashboards/domain-service.json', 'deploy/grafana/provisioning/datasources/datasources.yml']) {
      await expect(readFile(path.join(REPO_ROOT, file)), file).resolves.toBeDefined();
    }
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
  });

  it('builds the image on a supported Node LTS line, running the entry points that exist', async () => {
    const dockerfile = await readFile(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const lines = [...dockerfile.matchAll(/^FROM node:(\d+)/gm)].map((match) => Number(match[1]));
    expect(lines.length).toBeGreaterThan(0);
    // Node 20 reached its end of life in April 2026; 22 is maintained until April 2027, 24 until 2028.
    for (const major of lines) expect([22, 24]).toContain(major);
    const services = (await loadCompose({ ...SECRETS, ...IDENTITY })).services!;
    expect(['api', 'worker', 'migrate'].map((name) => services[name]!.command)).toEqual([
      ['node', 'dist/src/main.js', '--role', 'api'],
      ['node', 'dist/src/main.js', '--role', 'worker'],
      ['node', 'dist/src/cli/migrate.js'],
    ]);
    for (const source of ['src/main.ts', 'src/cli/migrate.ts', 'src/cli/workerHealth.ts']) {
      await expect(readFile(path.join(REPO_ROOT, source))).resolves.toBeDefined();
    }
  });
});
