/** `npm run token -- --email alice@example.com [--name Alice] [--ttl 3600]`: a development session JWT. */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config.js';
import { loadDevIdentityProvider } from '../auth/dev/devIdentityProvider.js';

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
  const provider = await loadDevIdentityProvider(config.dataDir);
  console.log(await provider.issueToken({ email: email.data, ...(values.name ? { name: values.name } : {}), ...(ttlSeconds ? { ttlSeconds } : {}) }));
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
