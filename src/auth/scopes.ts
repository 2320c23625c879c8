/** The complete set of scopes (docs/api-guide.md, Authentication). A session holds all of them. */
export const SCOPES = [
  'domains:read',
  'domains:write',
  'dns:read',
  'dns:write',
  'contacts:read',
  'contacts:write',
  'billing:read',
  'billing:write',
  'orgs:read',
  'orgs:write',
  'keys:read',
  'keys:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Scope sets the dashboard pre-fills per use case: each key only as wide as its job. */
export const KEY_PRESETS = {
  ci: ['domains:read', 'dns:read', 'dns:write'],
  monitoring: ['domains:read', 'dns:read', 'billing:read'],
  registrar_tooling: ['domains:read', 'domains:write', 'dns:read', 'dns:write', 'contacts:read', 'contacts:write'],
  // With `allowed_records` naming the `_acme-challenge` TXT records (required with this preset): DNS-01 only.
  certificates: ['dns:read', 'dns:write'],
} as const satisfies Record<string, readonly Scope[]>;
