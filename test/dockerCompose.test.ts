import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';
import { REPO_ROOT } from './support/processes.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
}

/** What `docker compose` does to `${VAR:-default}`, with `vars` set in the shell (none by default). */
function interpolate(value: string | number, vars: Record<string, string> = {}): string {
  return String(value).replace(/\$\{([A-Z_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => vars[name] || (fallback ?? ''));
}

const compose = parse(await readFile(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const { services } = compose;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, Redis, Temporal with its own PostgreSQL, the Web UI and its codec server, migrations, api and worker', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api', 'codec-server', 'migrate', 'postgres', 'redis', 'temporal', 'temporal-postgres', 'temporal-ui', 'worker'].sort(),
    );
    expect(services['temporal-ui']!.environment).toMatchObject({ TEMPORAL_CODEC_ENDPOINT: 'http://localhost:8888' });
    expect(services['codec-server']!.command).toEqual(['node', 'dist/src/main.js', '--role', 'codec-server']);
    // Published on the host's loopback only: it decrypts for whoever reaches it.
    expect(services['codec-server']!.ports).toEqual(['127.0.0.1:8888:8888']);
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-postgres' });
  });

  it('gives every long-running service a health check, and starts each only after what it needs is healthy', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'migrate') continue;
      expect(service.healthcheck?.test, name).toBeDefined();
    }
    for (const name of ['api', 'worker']) {
      expect(services[name]!.depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
        temporal: { condition: 'service_healthy' },
      });
    }
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.temporal!.depends_on).toEqual({ 'temporal-postgres': { condition: 'service_healthy' } });
  });

  it('runs the built entry points that exist in this repository', async () => {
    const commands = ['api', 'worker', 'migrate'].map((name) => services[name]!.command!);
    expect(commands).toEqual([
      ['node', 'dist/src/main.js', '--role', 'api'],
      ['node', 'dist/src/main.js', '--role', 'worker'],
      ['node', 'dist/src/cli/migrate.js'],
    ]);
    for (const source of ['src/main.ts', 'src/cli/migrate.ts', 'src/cli/workerHealth.ts', 'src/cli/token.ts']) {
      await expect(readFile(path.join(REPO_ROOT, source))).resolves.toBeDefined();
    }
    expect(services.api!.healthcheck!.test.join(' ')).toContain('/readyz');
  });

  const envOf = (name: string, vars: Record<string, string> = {}) =>
    Object.fromEntries(Object.entries(services[name]!.environment!).map(([k, v]) => [k, interpolate(v, vars)]));
  const IDENTITY = {
    AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
    AUTH_ISSUER: 'https://idp.example.com/',
    AUTH_AUDIENCE: 'domain-service',
    KEY_HASH_SECRET: 'k'.repeat(40),
    PAYLOAD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  };

  it('configures api and worker with an environment our config accepts, pointing at the compose services', () => {
    for (const name of ['api', 'worker', 'migrate']) {
      const config = loadConfig(envOf(name, IDENTITY));
      expect(config.env).toBe('production');
      expect(config.databaseUrl).toBe('postgres://domains:domains@postgres:5432/domains');
      expect(config.redisUrl).toBe('redis://redis:6379');
      expect(config.temporal.address).toBe('temporal:7233');
    }
    expect(loadConfig(envOf('api', IDENTITY)).http).toEqual({ host: '0.0.0.0', port: 8080 });
  });

  it('defaults to production, so the api on 0.0.0.0 never starts with the development identity provider', () => {
    // Nothing set: refused, naming what is missing, rather than serving self-signed sessions.
    expect(() => loadConfig(envOf('api'))).toThrow(/AUTH_ISSUER: is required in production/);
    // Development mode asked for explicitly: still refused on a non-loopback HOST.
    expect(() => loadConfig(envOf('api', { NODE_ENV: 'development' }))).toThrow(/HOST: 0\.0\.0\.0 is not a loopback address/);
  });
});
