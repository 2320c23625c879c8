import type { FieldError } from '../../errors.js';
import { hostName } from '../dns/index.js';

/**
 * What an alias and its recipients may be. An alias's local part is plain (letters, digits and
 * `. _ + -`, no leading, trailing or doubled dot, at most 64), or `*` for the catch-all; a
 * recipient is `local@domain` with a dot-atom local part and a host name, never one of our SRS
 * addresses, never the alias itself (a loop). Anything that routes by its contents (`%`, `!`, `@`
 * in a local part, a source route) is refused, as the mail server refuses it.
 */
const ALIAS_LOCAL = /^[a-z0-9_+-]+(\.[a-z0-9_+-]+)*$/;
const DOT_ATOM = /^[a-z0-9#$&'*+/=?^_`{|}~-]+(\.[a-z0-9#$&'*+/=?^_`{|}~-]+)*$/;
export const MAX_RECIPIENTS = 10;

export interface CheckedForward {
  localPart: string;
  recipients: string[];
}

export function checkForward(props: { localPart: string; to: string[]; domain: string; srsDomain: string }): { ok: true; value: CheckedForward } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const localPart = props.localPart.trim().toLowerCase();
  if (localPart !== '*' && (localPart.length > 64 || !ALIAS_LOCAL.test(localPart))) {
    errors.push({ loc: ['body', 'local_part'], msg: 'Must be `*` (every address of the domain) or a plain local part: letters, digits, `.`, `_`, `+`, `-`, at most 64', type: 'email_forward_invalid' });
  }
  const alias = `${localPart}@${props.domain}`;
  const recipients: string[] = [];
  props.to.forEach((raw, index) => {
    const address = raw.trim().toLowerCase();
    const at = address.lastIndexOf('@');
    const local = address.slice(0, at);
    const host = hostName(address.slice(at + 1), { underscores: false });
    const loc = ['body', 'to', String(index)];
    if (at <= 0 || address.length > 254 || local.length > 64 || !DOT_ATOM.test(local) || !host || !host.includes('.')) {
      errors.push({ loc, msg: 'Must be an e-mail address such as someone@example.org', type: 'email_forward_invalid' });
    } else if (host === props.srsDomain || host.endsWith(`.${props.srsDomain}`)) {
      errors.push({ loc, msg: 'Must not be an address of our mail forwarder', type: 'email_forward_invalid' });
    } else if (address === alias) {
      errors.push({ loc, msg: 'Must not be the alias itself', type: 'email_forward_invalid' });
    } else if (recipients.includes(address)) {
      errors.push({ loc, msg: 'Is named twice', type: 'email_forward_invalid' });
    } else {
      recipients.push(address);
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { localPart, recipients } };
}
