import type { MailMessage } from './mailer.js';

export interface LeakNoticeProps {
  to: string;
  ownerName: string | null;
  key: { id: string; name: string; prefix: string; mode: 'live' | 'test' };
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
    live
      ? 'We have revoked this key: every request made with it is now refused with 401 API_KEY_REVOKED. ' +
        'Leaked live keys are always revoked; this cannot be turned off.'
      : 'Test keys never reach the registrar, so this key has not been revoked, but anyone who finds it can ' +
        'act in your test mode. Replace it all the same.',
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
