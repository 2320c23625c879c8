/**
 * The document's top-level tags: one for each group of operations, in the order the reference lists
 * them, each with what the group is for. A route's tag not listed here is a gap the OpenAPI lint test
 * (test/openapi/lint.test.ts) reports.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness and readiness of the api process, for load balancers and orchestrators.',
  identity: 'Who the token belongs to, and the device sign-in a command-line tool starts with.',
  organisations: 'Organisations, their members and roles, the invitations that add members, and the audit log.',
  'api keys': 'Your API keys: each one scoped to some operations, in live or test mode, optionally limited to some domains or records.',
  domains: 'Availability and TLDs; registering, transferring and renewing domains, their settings and auth codes, and moving them between organisations.',
  operations: 'The long-running operations a registration, transfer, renewal or move starts: their state, and cancelling one.',
  billing: 'The organisation\'s prepaid balance, its transactions, and top-ups through Stripe.',
  contacts: 'The registrant, administrative, technical and billing contacts domains are registered with.',
  dns: 'DNS records of the organisation\'s domains: listed, created, changed and deleted one at a time or in batches.',
  forwarding: 'Mail for addresses of the organisation\'s domains forwarded to other addresses, on our mail servers.',
  certificates: 'DNS-01 challenges for ACME clients (lego\'s httpreq provider and ACME-DNS), answered with DNS records.',
  webhooks: 'Events of the organisation\'s domains and operations: listed, streamed, and delivered to webhook endpoints.',
  'secret scanning': 'Where GitHub reports API keys it found in public code, so the service revokes them.',
  reference: 'This document and the API reference pages made from it.',
  development: 'Served only by a development server.',
};

/** The tags the operations use, in catalogue order (then any not in it), with their descriptions. */
export function documentTags(used: Iterable<string>): { name: string; description?: string }[] {
  const names = new Set(used);
  const ordered = [...Object.keys(TAG_DESCRIPTIONS).filter((name) => names.has(name)), ...[...names].filter((name) => !(name in TAG_DESCRIPTIONS))];
  return ordered.map((name) => (name in TAG_DESCRIPTIONS ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
}
