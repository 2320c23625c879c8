import { ApiError, type FieldError } from '../../errors.js';
import type { Plan } from '../../auth/organizations.js';

/** 422: an alias or a recipient that is not an address mail can be forwarded to or from; every problem at once. */
export class EmailForwardInvalidError extends ApiError {
  constructor(errors: FieldError[]) {
    super('EMAIL_FORWARD_INVALID', errors);
  }
}

/** 409: the domain holds its plan's aliases already; nothing changed. */
export class EmailForwardLimitError extends ApiError {
  constructor(props: { limit: number; plan: Plan }) {
    super('EMAIL_FORWARD_LIMIT', `A domain on the ${props.plan} plan holds at most ${props.limit} e-mail forwards; delete one first`);
  }
}
