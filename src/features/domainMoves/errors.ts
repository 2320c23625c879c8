import { ConflictError } from '../../errors.js';
import type { DomainMoveStatus } from './domainMoves.repository.js';

/** 409: the move was accepted, cancelled or has expired; only a pending move can be accepted or cancelled. */
export class MoveNotPendingError extends ConflictError {
  constructor(moveId: string, status: DomainMoveStatus) {
    super('MOVE_NOT_PENDING', `Domain move ${moveId} is ${status}; only a pending move can be accepted or cancelled`);
  }
}
