import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc, renderEnvExample } from './lib/configDocs.js';

// `npm run config:docs`: rewrites docs/configuration.md and .env.example from src/configSchema.ts.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const composeYaml = await readFile(path.join(root, 'docker-compose.yml'), 'utf8');
await writeFile(path.join(root, 'docs', 'configuration.md'), renderConfigurationDoc());
await writeFile(path.join(root, '.env.example'), renderEnvExample(composeYaml));
console.log('wrote docs/configuration.md and .env.example');
