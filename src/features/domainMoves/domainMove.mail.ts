import type { MailMessage } from '../../mail/mailer.js';
import type { DomainMove } from './domainMoves.repository.js';
import { targetNameSeenBy } from './domainMove.presenter.js';

export type MoveMailKind = 'proposed' | 'accepted' | 'cancelled';

function utc(date: Date): string {
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/**
 * What each side reads about a move: what happened, and what it can do about it. The source reads
 * the target by its id until the target has answered, as in the API (targetNameSeenBy): the same
 * mail whether or not an organisation has that id.
 */
function body(move: DomainMove, kind: MoveMailKind, side: 'source' | 'target'): { subject: string; lines: string[] } {
  const from = `"${move.fromOrgName}"`;
  const targetName = targetNameSeenBy(move, side === 'source' ? move.fromOrgId : move.toOrgId);
  const to = targetName === null ? `organisation ${move.toOrgId}` : `"${targetName}"`;
  const mode = move.livemode ? '' : ' (test mode)';
  switch (kind) {
    case 'proposed':
      return {
        subject: `Move of ${move.domainName} to ${to} proposed${mode}`,
        lines: [
          `A move of ${move.domainName} from ${from} to ${to} was proposed${mode}.`,
          side === 'target'
            ? `An owner or admin of ${to} accepts it with POST /api/v1/orgs/${move.toOrgId}/domain-moves/${move.id}/accept.`
            : `Nothing changes until an owner or admin of ${to} accepts it.`,
          `Either side may cancel it (POST /api/v1/orgs/<your org>/domain-moves/${move.id}/cancel).`,
          `It expires at ${utc(move.expiresAt)} unless accepted before.`,
        ],
      };
    case 'accepted':
      return {
        subject: `${move.domainName} moved to ${to}${mode}`,
        lines: [
          `${move.domainName} now belongs to ${to}${mode}: its DNS records, renewals and notices with it.`,
          'Nothing was charged and nothing changed at the registrar.',
        ],
      };
    case 'cancelled':
      return {
        subject: `Move of ${move.domainName} to ${to} cancelled${mode}`,
        lines: [`The move of ${move.domainName} from ${from} to ${to} was cancelled; the domain stays with ${from}.`],
      };
  }
}

/** The e-mail to one owner of either side about a move. */
export function domainMoveNotice(props: { to: string; move: DomainMove; kind: MoveMailKind; side: 'source' | 'target'; at: Date }): MailMessage {
  const { subject, lines } = body(props.move, props.kind, props.side);
  return {
    to: props.to,
    subject,
    text: ['Hello,', '', ...lines, '', '-- ', 'Domain Service'].join('\n'),
    date: props.at,
    idempotencyKey: `domain-move:${props.move.id}:${props.kind}:${props.to}`,
  };
}
