/** `npm run migrate`: applies pending migrations to DATABASE_URL (creating the database outside production). */
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { ensureDatabase, migrateUp } from '../db/migrate.js';

try {
  const config = loadConfig();
  const logger = createLogger(config, { component: 'migrate' });
  if (config.env !== 'production') await ensureDatabase(config.databaseUrl);
  const applied = await migrateUp(config.databaseUrl, logger);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations.');
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = 1;
}
