import type { MailMessage } from '../../mail/mailer.js';

export interface InvitationNoticeProps {
  to: string;
  invitationId: string;
  orgName: string;
  role: 'admin' | 'member';
  inviter: { name: string | null; email: string | null };
  expiresAt: Date;
  createdAt: Date;
}

/** The e-mail to an invitee: who invited them where, and how to accept or ignore it. */
export function invitationNotice(props: InvitationNoticeProps): MailMessage {
  const inviter = props.inviter.name ?? props.inviter.email ?? 'A member';
  const expires = props.expiresAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const lines = [
    'Hello,',
    '',
    `${inviter} invited ${props.to} to join the organisation "${props.orgName}" as ${props.role}.`,
    '',
    `To accept, sign in with this e-mail address and accept invitation ${props.invitationId}`,
    `(GET /api/v1/me/invitations lists it; POST /api/v1/me/invitations/${props.invitationId}/accept accepts it).`,
    `The invitation expires at ${expires}. If you did not expect it, ignore this message: nothing changes`,
    'unless you accept.',
    '',
    '-- ',
    'Domain Service',
  ];
  return {
    to: props.to,
    subject: `You are invited to join "${props.orgName}"`,
    text: lines.join('\n'),
    date: props.createdAt,
    idempotencyKey: `invitation:${props.invitationId}`,
  };
}
