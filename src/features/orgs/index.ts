/**
 * The orgs feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { meRoutes } from './me.routes.js';
export { memberRoutes } from './members.routes.js';
export type { MemberChange, MemberChangeCascade } from './members.js';
export { organizationRoutes } from './orgs.routes.js';
export { OrgsOfUser } from './orgsOfUser.js';
