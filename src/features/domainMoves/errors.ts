import { ConflictError } from '../../errors.js';
import type { DomainMoveStatus } from './domainMoves.repository.js';

/** 409: the move was accepted, cancelled or has expired; only a pending move can be accepted or cancelled. */
export class MoveNotPendingError extends ConflictError {
  constructor(moveId: string, status: DomainMoveStatus) {
    super('MOVE_NOT_PENDING', `Domain move ${moveId} is ${status}; only a pending move can be accepted or cancelled`);
  }
}

/** 409 `MOVE_NOT_PENDING`: its proposer is no longer an owner or admin of the source, so it cannot be accepted. */
export class MoveProposerGoneError extends ConflictError {
  constructor(moveId: string) {
    super('MOVE_NOT_PENDING', `Domain move ${moveId} can no longer be accepted: its proposer is no longer an owner or admin of the source organisation`);
  }
}

/** 409: the source already has as many pending moves in this mode as its plan allows. */
export class DomainMoveLimitError extends ConflictError {
  constructor(limit: number) {
    super(
      'DOMAIN_MOVE_LIMIT',
      `This organisation already has ${limit} pending domain moves in this mode, the most its plan allows; cancel one, or wait until one is accepted or expires`,
    );
  }
}
