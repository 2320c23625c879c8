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
 * the answer: past MAIL_WAIT_MS the sending goes on in the background. A proposal's answer does not
 * wait for the target's mail at all: the target may not exist, and the answer must take as long
 * either way (docs/api-guide.md, Moving a domain).
 */
export async function mailBothSides(props: { db: Db; mailer: Mailer; log: Logger; move: DomainMove; kind: MoveMailKind }): Promise<void> {
  const { move } = props;
  const source = mailSide(props, 'source', move.fromOrgId);
  const target = mailSide(props, 'target', move.toOrgId);
  const awaited = props.kind === 'proposed' ? source : Promise.all([source, target]);
  await Promise.race([awaited, new Promise((resolve) => setTimeout(resolve, MAIL_WAIT_MS).unref())]);
}

/** The mail to one side's owners; never rejects (failures are logged), as nothing may wait for it. */
async function mailSide(props: { db: Db; mailer: Mailer; log: Logger; move: DomainMove; kind: MoveMailKind }, side: 'source' | 'target', orgId: string): Promise<void> {
  const { move } = props;
  const at = move.decidedAt ?? move.createdAt;
  const failed = (err: unknown) => props.log.error({ err, moveId: move.id, kind: props.kind, side }, 'could not e-mail an owner about a domain move; the move stands');
  try {
    const owners = await listOwnerEmails(props.db, orgId);
    await Promise.all(owners.map((address) => props.mailer.send(domainMoveNotice({ to: address, move, kind: props.kind, side, at })).catch(failed)));
  } catch (err) {
    failed(err);
  }
}
