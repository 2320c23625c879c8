import type { MailMessage } from '../../mail/mailer.js';

export interface LeakNoticeProps {
  to: string;
  ownerName: string | null;
  /** `scopes` is absent in notices of workflows started before it was passed along. */
  key: { id: string; name: string; prefix: string; mode: 'live' | 'test'; scopes?: readonly string[] };
  /** `revoked` now or before (live keys); `reported` for test keys, which stay active. */
  outcome: 'revoked' | 'already_revoked' | 'reported';
  sourceUrl: string;
  source: 'github_secret_scanning' | 'github_code_search';
  foundAt: Date;
  idempotencyKey: string;
}

const SOURCES = {
  github_secret_scanning: "GitHub's secret scanning",
  github_code_search: 'our scan of public code on GitHub',
};

/**
 * What each scope lets a test key do. Test keys act only on test-mode data (src/db/modeScope.ts) and
 * never reach the registrar or the DNS provider; organisations and memberships are shared by both
 * modes, so reading them is real but changing them needs a live credential (403 LIVE_CREDENTIAL_REQUIRED).
 */
const TEST_KEY_REACH: Record<string, string> = {
  'domains:read': 'look up your test-mode domains and operations, and check availability',
  'domains:write': 'register, transfer, renew and change test-mode domains (paid with test money) and read their auth codes',
  'dns:read': "read the DNS records of test-mode domains (they are never published)",
  'dns:write': 'change the DNS records of test-mode domains (they are never published)',
  'contacts:read': 'read test-mode contacts (names, addresses, e-mail addresses and phone numbers entered in test mode)',
  'contacts:write': 'create, change and delete test-mode contacts',
  'billing:read': 'read test-mode balances and ledgers',
  'billing:write': 'add free test money to test-mode balances',
  'orgs:read': 'read your organisations and their members (shared by test and live mode)',
  'keys:read': 'list your test keys (names and prefixes, never secrets)',
  'keys:write': 'create test keys with no more than its own scopes, and delete your test keys',
};

/** The part of a test key's notice that says, truthfully, what the key reaches and what it does not. */
function testKeyReach(scopes: readonly string[] | undefined): string[] {
  const can = (scopes ?? Object.keys(TEST_KEY_REACH)).flatMap((scope) => (TEST_KEY_REACH[scope] ? [`  - ${TEST_KEY_REACH[scope]}`] : []));
  return [
    'Test keys are reported, not revoked: this key still works until you delete it, and anyone who found it',
    'can use it, acting as you in every organisation you belong to.',
    '',
    scopes ? `Its scopes: ${scopes.length ? scopes.join(', ') : 'none'}. With them it can:` : 'Depending on its scopes, it can:',
    '  - read your profile (name and e-mail address)',
    ...can,
    '',
    'It cannot:',
    '  - see or change anything in live mode: live domains, DNS records, contacts, balances or keys',
    '  - reach the registrar or the DNS provider, or spend real money',
    '  - create organisations, or add, remove or change the role of members (that needs a live key or a',
    '    signed-in session)',
    '  - create live keys, or keys with scopes it does not hold',
    '',
    'Replace it all the same.',
  ];
}

/**
 * The e-mail to a key's owner: what was found (name and prefix, never the secret), where, when,
 * what we did, and how to replace the key. There is no rotate operation: create, deploy, delete.
 */
export function leakNotice(props: LeakNoticeProps): MailMessage {
  const { key } = props;
  const live = key.mode === 'live';
  const when = props.foundAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const lines = [
    `Hello${props.ownerName ? ` ${props.ownerName}` : ''},`,
    '',
    `One of your ${key.mode} API keys was found in public source code.`,
    '',
    `  Key:       "${key.name}" (${key.prefix}…, id ${key.id})`,
    `  Found at:  ${props.sourceUrl}`,
    `  Found by:  ${SOURCES[props.source]}`,
    `  When:      ${when}`,
    '',
    ...(live
      ? [
          'We have revoked this key: every request made with it is now refused with 401 API_KEY_REVOKED. ' +
            'Leaked live keys are always revoked; this cannot be turned off.',
        ]
      : testKeyReach(key.scopes)),
    '',
    'To replace the key:',
    `  1. Create a new ${key.mode} key with the scopes it needs (POST /api/v1/me/api-keys, or the dashboard).`,
    '  2. Deploy it where the old key was used, from a secrets manager rather than source code.',
    `  3. Delete the old key (DELETE /api/v1/me/api-keys/${key.id}).`,
    '',
    'Then remove the key from the repository and its history: it stays visible in earlier commits.',
    '',
    '-- ',
    'Domain Service security',
  ];
  return {
    to: props.to,
    subject: live ? `Your live API key "${key.name}" was found in public code and has been revoked` : `Your test API key "${key.name}" was found in public code`,
    text: lines.join('\n'),
    date: props.foundAt,
    idempotencyKey: props.idempotencyKey,
  };
}
