import type { Db } from '../../db/pool.js';
import { findContact } from '../contacts/index.js';
import { ValidationError } from '../../errors.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * The live registrar (DNSimple) requires `state_province` on every contact: its contacts endpoint
 * answers 400 "can't be blank" without one (fixtures/v2/api/validation-error.http in
 * dnsimple/dnsimple-developer). Refusing here, before anything is reserved, names the field the
 * customer must fill in instead of failing the operation after the money moved.
 */
export async function requireRegistrantState(db: Db, contact: { orgId: string; id: string }): Promise<void> {
  const found = await findContact(db, modeOf(true), contact);
  if (found && !found.state?.trim()) {
    throw new ValidationError([
      {
        loc: ['body', 'registrant_contact_id'],
        msg: 'The registrant contact has no state (state/province); the registrar requires one. Set `state` on the contact, then retry.',
        type: 'contact_state_required',
      },
    ]);
  }
}
