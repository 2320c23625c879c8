import type { z } from 'zod';
import { configSections } from '../../src/configSchema.js';

// Renders docs/configuration.md and .env.example from the schema (src/configSchema.ts), so each
// variable's default and description are written once. scripts/configDocs.ts writes the files.

export const CONFIG_DOCS_COMMAND = 'npm run config:docs';

interface Variable {
  name: string;
  section: string;
  description: string;
  /** What to type to get the default, or undefined when the variable is unset by default. */
  default: string | undefined;
  production: z.GlobalMeta['production'];
}

/** The schema's default as it would be written in the environment (`prefault`s are already strings). */
function defaultOf(schema: z.core.$ZodType): string | undefined {
  const def = schema._zod.def;
  if (def.type === 'default' || def.type === 'prefault') {
    const value = (def as z.core.$ZodDefaultDef).defaultValue;
    return Array.isArray(value) ? value.join(',') : String(value);
  }
  if (def.type === 'pipe') return defaultOf((def as z.core.$ZodPipeDef).in);
  return undefined;
}

export function configVariables(): Variable[] {
  return Object.entries(configSections).flatMap(([section, shape]) =>
    Object.entries(shape).map(([name, schema]: [string, z.ZodType]) => {
      const meta = schema.meta();
      if (!meta?.description) throw new Error(`${name} in src/configSchema.ts has no .describe()`);
      return { name, section, description: meta.description, default: defaultOf(schema), production: meta.production };
    }),
  );
}

function productionNote(variable: Variable): string {
  if (variable.production === undefined) return '';
  if ('required' in variable.production) return ' **Required in production.**';
  return ` **Refused in production:** \`${variable.production.refuses}\`.`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function renderConfigurationDoc(): string {
  const lines = [
    '# Configuration',
    '',
    `<!-- Generated from src/configSchema.ts by \`${CONFIG_DOCS_COMMAND}\`: edit the schema, then run it. -->`,
    '',
    'The service reads these environment variables at start and validates them: a bad value stops the',
    'process with a message naming the variable. With `NODE_ENV=production` the ones marked below are',
    'required or refused. Docker Compose passes its containers only what `docker-compose.yml` names;',
    '`.env.example` lists those.',
  ];
  const variables = configVariables();
  for (const section of Object.keys(configSections)) {
    lines.push('', `## ${section}`, '', '| variable | default | description |', '| --- | --- | --- |');
    for (const variable of variables.filter((v) => v.section === section)) {
      const shownDefault = variable.default === undefined ? 'unset' : variable.default === '' ? 'none' : `\`${cell(variable.default)}\``;
      lines.push(`| \`${variable.name}\` | ${shownDefault} | ${cell(variable.description)}${productionNote(variable)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The first sentence: .env.example gives one line per variable and points at the full text. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

/**
 * What `docker-compose.yml` reads from `.env`, in order of appearance: `${NAME:?…}` must be set,
 * `${NAME:-default}` has a default, `${NAME?…}` must be present (the identity-provider pair).
 */
export function composeVariables(composeYaml: string): Map<string, { required: boolean; default: string | undefined }> {
  const found = new Map<string, { required: boolean; default: string | undefined }>();
  for (const [, name, operator, rest] of composeYaml.matchAll(/\$\{([A-Z0-9_]+)(:?[-?])?([^}]*)\}/g)) {
    if (found.has(name!)) continue;
    found.set(name!, { required: operator === ':?', default: operator?.endsWith('-') ? rest : undefined });
  }
  return found;
}

/** Variables only docker-compose.yml reads (the app never sees them under these names). */
const COMPOSE_ONLY: Record<string, string> = {
  POSTGRES_PASSWORD: 'The application database\'s password: openssl rand -hex 24',
  TEMPORAL_DB_PASSWORD: 'Temporal\'s database password: openssl rand -hex 24',
  PDNS_API_KEY: 'The PowerDNS API key (the api edits live zones with it, as DNS_PROVIDER_TOKEN): openssl rand -hex 24',
};

const HEADER = `# docker compose reads .env beside docker-compose.yml. Copy this file to .env and fill it in;
# \`docker compose up\` names any variable still missing before it starts anything. .env is in
# .gitignore: it holds secrets. Every variable is described in docs/configuration.md.
# Generated from src/configSchema.ts and docker-compose.yml by \`${CONFIG_DOCS_COMMAND}\`: edit those, then run it.`;

const PROFILES = `# --- Identity provider (production): uncomment and fill in. Any OpenID Connect provider; ----------
# an example for Auth0:
# AUTH_ISSUER=https://your-tenant.eu.auth0.com/
# AUTH_AUDIENCE=https://api.your-domain.example
# (AUTH_JWKS_URL is optional: the keys are found by discovery at AUTH_ISSUER.)
# The dashboard's sign-in: a confidential client with redirect URI <PUBLIC_URL>/dashboard/callback.
# AUTH_CLIENT_ID=
# AUTH_CLIENT_SECRET=
# PUBLIC_URL=https://domains.your-domain.example

# --- Or the development profile: the built-in identity provider, Mailpit and stripe-mock. ------
# It signs a session for any e-mail typed in, so the api stays published on 127.0.0.1 only.
# Instead of the identity-provider block above, uncomment these lines:
# COMPOSE_PROFILES=dev
# NODE_ENV=development
# DEV_IDP_BEHIND_LOOPBACK=true
# AUTH_ISSUER=
# AUTH_JWKS_URL=
# AUTH_AUDIENCE=
# SMTP_URL=smtp://mailpit:1025
# STRIPE_API_KEY=sk_test_123
# STRIPE_WEBHOOK_SECRET=whsec_dev_only
# STRIPE_API_BASE=http://stripe-mock:12111`;

const COMPOSE_EXTRAS = `# --- Observability: Prometheus (127.0.0.1:9090), Grafana (127.0.0.1:3000), Jaeger (127.0.0.1:16686) ---
# Add the profile (with the development one: COMPOSE_PROFILES=dev,observability) and send traces to Jaeger:
# COMPOSE_PROFILES=observability
# OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318
# GRAFANA_ADMIN_PASSWORD=          openssl rand -hex 16

# --- Where ports are published (default: this host's loopback only) ---------------------------
# API_PUBLISH=0.0.0.0          the api on every interface (put TLS in front of it)
# TEMPORAL_PUBLISH=127.0.0.1   Temporal's frontend (7233) and Web UI (8233)
# DNS_PUBLISH=0.0.0.0          PowerDNS on port 53, to serve the zones to the world
# APP_VERSION=local            the tag of the image built for the api, worker and codec server

# --- Live DNS ---------------------------------------------------------------------------------
# PDNS_RESOLVER=1.1.1.1        the recursive resolver PowerDNS asks for ALIAS targets (docs/operations.md)`;

const rule = (title: string) => `# --- ${title} ${'-'.repeat(Math.max(3, 94 - title.length))}`;

/** `.env.example` for docker compose: what compose reads from `.env`, described from the schema. */
export function renderEnvExample(composeYaml: string): string {
  const variables = new Map(configVariables().map((variable) => [variable.name, variable]));
  const compose = composeVariables(composeYaml);
  const describe = (name: string) => COMPOSE_ONLY[name] ?? firstSentence(variables.get(name)?.description ?? '');

  const secrets = [...compose].filter(([, use]) => use.required).map(([name]) => `# ${describe(name)}\n${name}=`);
  const blocks = [HEADER, [rule('Secrets (always required). Generate each one; never reuse them across deployments.'), ...secrets].join('\n'), PROFILES];

  // The rest compose passes through with a default of its own (which may differ from the app's).
  const shown = new Set([...`${PROFILES}\n${COMPOSE_EXTRAS}`.matchAll(/^# ([A-Z0-9_]+)=/gm)].map(([, name]) => name!));
  for (const section of Object.keys(configSections)) {
    const lines = [...variables.values()]
      .filter((v) => v.section === section && compose.get(v.name)?.default !== undefined && !shown.has(v.name))
      .map((v) => `# ${firstSentence(v.description)}\n# ${v.name}=${compose.get(v.name)!.default}`);
    if (lines.length) blocks.push([rule(`${section} (optional; docker-compose.yml's defaults)`), ...lines].join('\n'));
  }
  blocks.push(COMPOSE_EXTRAS);
  blocks.push('# Other variables in docs/configuration.md reach the containers once docker-compose.yml names them.');
  return `${blocks.join('\n\n')}\n`;
}
