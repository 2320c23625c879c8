import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import type { Mailer } from '../../mail/mailer.js';
import { listOwnerEmails } from '../../auth/memberships.js';
import { domainMoveNotice, type MoveMailKind } from './domainMove.mail.js';
import type { DomainMove } from './domainMoves.repository.js';

const MAIL_WAIT_MS = 5_000;

/**
 * E-mails the owners of both sides about a move, once it is committed. A mail that cannot be sent
 * is logged: the move stands and both sides see it in their lists. A slow mail server does not hold
 * the answer: past MAIL_WAIT_MS the sending goes on in the background.
 */
export async function mailBothSides(props: { db: Db; mailer: Mailer; log: Logger; move: DomainMove; kind: MoveMailKind }): Promise<void> {
  const { move } = props;
  const at = move.decidedAt ?? move.createdAt;
  const sides = [
    { side: 'source' as const, to: await listOwnerEmails(props.db, move.fromOrgId) },
    { side: 'target' as const, to: await listOwnerEmails(props.db, move.toOrgId) },
  ];
  const sent = Promise.all(
    sides.flatMap(({ side, to }) =>
      to.map((address) =>
        props.mailer.send(domainMoveNotice({ to: address, move, kind: props.kind, side, at })).catch((err: unknown) => {
          props.log.error({ err, moveId: move.id, kind: props.kind }, 'could not e-mail an owner about a domain move; the move stands');
        }),
      ),
    ),
  );
  await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, MAIL_WAIT_MS).unref())]);
}
