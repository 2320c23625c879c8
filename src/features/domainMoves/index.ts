/**
 * The domainMoves feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { DomainMoveSchema, presentDomainMove } from './domainMove.presenter.js';
export { decideDomainMove, type DomainMove, effectiveStatus, findDomainMove } from './domainMoves.repository.js';
export { cancelDomainMoveRoutes, domainMoveRoutes, moveRequest, MOVES_GUIDE, OWNERS_AND_ADMINS } from './domainMoves.routes.js';
export { MoveNotPendingError, MoveProposerGoneError } from './errors.js';
export { handDnssecOver, handDomainOver, handRecordsOver, readdressUnmailedNotices } from './handOver.repository.js';
export { checkMovable, checkTargetFree, PROPOSER_ROLES } from './moveChecks.js';
export { mailBothSides } from './moveNotices.js';
export { moveOfCaller } from './moveOfCaller.js';
export type { MoveRequest } from './proposeMove.js';
export { cancelMovesOfDepartingProposer } from './proposerMoves.js';
export { MovePath } from './schemas.js';
