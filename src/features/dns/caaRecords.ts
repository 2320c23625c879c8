import { PRINTABLE_ASCII, hostName, type ContentCheck, type RecordIssue } from './recordSyntax.js';

/** CAA (RFC 8659): which certificate authorities may issue for a name, and where they report. */
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

/**
 * `mailto:local@domain` or `http(s)://…`, no white space. Parsed by position rather than with a
 * backtracking pattern (`\S+@\S+` is quadratic on a long value without `@`).
 */
function isIodefUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  const lower = value.toLowerCase();
  if (lower.startsWith('mailto:')) {
    const at = value.indexOf('@', 7);
    return at > 7 && at < value.length - 1;
  }
  const scheme = lower.startsWith('https://') ? 8 : lower.startsWith('http://') ? 7 : 0;
  return scheme > 0 && value.length > scheme;
}

export function checkCaa(content: string): ContentCheck {
  const bad = (message: string): RecordIssue => ({ field: 'content', message, type: 'caa_invalid' });
  const match = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(.+)$/.exec(content);
  if (!match) return bad('Must be "flags tag value", e.g. 0 issue "letsencrypt.org"');
  const flags = Number(match[1]);
  const tag = match[2]!.toLowerCase();
  const value = match[3]!.replace(/^"(.*)"$/, '$1');
  if (flags > 255) return bad('Flags must be 0–255 (0, or 128 for critical)');
  if (!(CAA_TAGS as readonly string[]).includes(tag)) return bad(`The tag must be one of ${CAA_TAGS.join(', ')}`);
  // The content is stored and sent in presentation form, where a backslash escapes what follows it
  // (the last one would escape the closing quote); no issuer, parameter or URL needs one.
  if (!PRINTABLE_ASCII.test(value) || value.includes('"') || value.includes('\\')) return bad('The value must be printable ASCII without double quotes or backslashes');
  if (tag === 'iodef') {
    if (!isIodefUrl(value)) return bad('An iodef value must be a mailto: or http(s):// URL');
  } else {
    const [issuer = '', ...parameters] = value.split(';');
    const issuerOk = issuer.trim() === '' || hostName(issuer, { underscores: false }) !== undefined;
    const parametersOk = parameters.every((p) => p.trim() === '' || /^\s*[A-Za-z0-9]+=\S*\s*$/.test(p));
    if (!issuerOk || !parametersOk || (issuer.trim() === '' && parameters.length === 0)) {
      return bad(`An ${tag} value must be a CA's domain name (e.g. "letsencrypt.org"), optionally followed by "; key=value" parameters, or ";" to allow no CA`);
    }
  }
  return { content: `${flags} ${tag} "${value}"` };
}
