import type { DomainNoticeFacts, DomainNoticeKind } from './domainNotices.repository.js';
import type { MailMessage } from '../../mail/mailer.js';

export interface DomainNoticeMailProps {
  noticeId: string;
  kind: DomainNoticeKind;
  facts: DomainNoticeFacts;
  livemode: boolean;
  /** When the notice was recorded (real time, also with a test clock moved on). */
  recordedAt: Date;
  to: { email: string; name: string | null };
}

const day = (iso: string | undefined): string => (iso ? iso.slice(0, 10) : 'unknown');

/** Subject and the lines that say what happened and what to do, by kind. */
function body(kind: DomainNoticeKind, f: DomainNoticeFacts): { subject: string; lines: string[] } {
  const renew = `POST /api/v1/orgs/${f.orgId}/domains/${f.name}/renew`;
  switch (kind) {
    case 'expiring':
      return {
        subject: `${f.name} expires in ${f.daysLeft ?? '?'} day${f.daysLeft === 1 ? '' : 's'}`,
        lines: [
          `${f.name} expires on ${day(f.expiresAt)} and auto-renew is off.`,
          '',
          `To keep it, renew it (${renew}, or the dashboard), or turn auto-renew on ` +
            `(PATCH /api/v1/orgs/${f.orgId}/domains/${f.name} {"auto_renew": true}) with enough balance.`,
        ],
      };
    case 'auto_renew_failed':
      return {
        subject: `Auto-renewal of ${f.name} failed`,
        lines: [
          `We tried to renew ${f.name} for one year from your balance and could not: ${(f.reason ?? 'unknown reason').replace(/\.$/, '')}.`,
          `It expires on ${day(f.expiresAt)}. We try again every day until then.`,
          '',
          `Top up the balance (POST /api/v1/orgs/${f.orgId}/billing/top-ups) or renew it yourself (${renew}).`,
        ],
      };
    case 'expired':
      return {
        subject: `${f.name} has expired`,
        lines: [
          `${f.name} expired on ${day(f.expiresAt)}. Its DNS records can no longer be changed.`,
          '',
          `It can still be renewed until ${day(f.graceEndsAt)} (${renew}); after that it is deleted, with its ` +
            'DNS records, and the name is free for anyone to register.',
        ],
      };
    case 'deleted':
      return {
        subject: `${f.name} has been deleted`,
        lines: [
          `${f.name} expired on ${day(f.expiresAt)} and was not renewed during the grace period, so it has been ` +
            'deleted with its DNS records. The name is free again: anyone may register it.',
        ],
      };
  }
}

/** The e-mail to one owner or admin about one lifecycle notice; its Message-ID derives from the notice and address. */
export function domainNoticeMail(props: DomainNoticeMailProps): MailMessage {
  const { subject, lines } = body(props.kind, props.facts);
  return {
    to: props.to.email,
    subject: props.livemode ? subject : `[test mode] ${subject}`,
    text: [`Hello${props.to.name ? ` ${props.to.name}` : ''},`, '', ...lines, '', '-- ', 'Domain Service'].join('\n'),
    date: props.recordedAt,
    idempotencyKey: `domain-notice:${props.noticeId}:${props.to.email}`,
  };
}
