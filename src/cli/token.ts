/** `npm run token -- --email alice@example.com [--name Alice] [--ttl 3600]`: a development session JWT. */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { DEV_SIGNING_KEY_FILE, loadDevIdentityProvider, type DevIdentityProvider } from '../auth/dev/devIdentityProvider.js';

/**
 * A token is only worth printing if the running api accepts it: it signs with the key `npm run dev`
 * created in its DATA_DIR. This never creates one (a new key's tokens are refused 401 by an api that
 * has another), and when an api answers on PORT with other keys it says so instead of printing.
 */
async function signingProvider(config: Config): Promise<DevIdentityProvider> {
  const dataDir = path.resolve(config.dataDir);
  try {
    await access(path.join(dataDir, DEV_SIGNING_KEY_FILE));
  } catch {
    throw new ConfigError([
      `DATA_DIR: no development signing key in ${dataDir}; npm run dev creates one there when it starts. Start it first, or give npm run token the DATA_DIR npm run dev runs with`,
    ]);
  }
  const provider = await loadDevIdentityProvider(dataDir);
  const served = await runningApiKeys(config);
  const ours = provider.jwks().keys[0]?.kid;
  if (served && !served.includes(ours ?? '')) {
    throw new ConfigError([
      `DATA_DIR: the api on port ${config.http.port} signs with another development key than the one in ${dataDir}, so it would refuse this token: give npm run token the DATA_DIR npm run dev runs with (and its PORT)`,
    ]);
  }
  return provider;
}

/** The key ids the api on this configuration's port publishes, or undefined when none answers. */
async function runningApiKeys(config: Config): Promise<string[] | undefined> {
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  try {
    const res = await fetch(`http://${shownHost}:${config.http.port}/dev/jwks.json`, { signal: AbortSignal.timeout(1_500) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { keys?: { kid?: string }[] };
    return (body.keys ?? []).map((key) => key.kid ?? '');
  } catch {
    return undefined;
  }
}

try {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' }, ttl: { type: 'string' } },
  });
  const email = z.email().safeParse(values.email);
  if (!email.success) throw new ConfigError(['--email: a valid e-mail address is required']);
  const ttlSeconds = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new ConfigError(['--ttl: must be a positive number of seconds']);
  }
  const config = loadConfig();
  if (config.env === 'production' || config.auth) {
    throw new ConfigError(['AUTH_ISSUER: the development identity provider is off; sign in with the real one']);
  }
  const provider = await signingProvider(config);
  console.log(await provider.issueToken({ email: email.data, ...(values.name ? { name: values.name } : {}), ...(ttlSeconds ? { ttlSeconds } : {}) }));
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
