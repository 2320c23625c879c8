/**
 * The contacts feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createContactActivities } from './activities.js';
export type { SyncRegistrarContactInput } from './contacts.contract.js';
export { type Contact, CONTACT_COLUMNS, type ContactFields, findContact, insertContact } from './contacts.repository.js';
export { contactRoutes } from './contacts.routes.js';
export { contactDetails, ensureRegistrarContact } from './registrarContact.js';
