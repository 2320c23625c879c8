/**
 * ALIAS is PowerDNS's own type (code 65401), which BIND and most other tools do not know: a zone
 * file writes it in RFC 3597's generic form, `TYPE65401 \# <length> <hex>`, its data the target
 * name in wire format (as PowerDNS stores it), so `named-checkzone` loads the file and an import
 * reads the ALIAS back (docs/api-guide.md, Zone files).
 */
export const ALIAS_GENERIC_TYPE = 'TYPE65401';

/** `\# <length> <hex>` of a target name (`www.example.com.`). */
export function aliasGenericData(target: string): string {
  const labels = target.replace(/\.$/, '').split('.').filter((label) => label !== '');
  const wire = Buffer.concat([...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])), Buffer.from([0])]);
  return `\\# ${wire.length} ${wire.toString('hex')}`;
}

/** The target name (absolute, with its dot) of the generic form's tokens as written, or what is wrong with them. */
export function aliasTargetOfGeneric(tokens: string[]): { target: string } | { error: string } {
  const [marker, length, ...hex] = tokens;
  const form = `${ALIAS_GENERIC_TYPE} (ALIAS) takes RFC 3597 data, e.g. "\\# 5 03777777 00"`;
  if (marker !== '\\#' || !length || !/^\d+$/.test(length)) return { error: form };
  const data = hex.join('');
  if (!/^([0-9a-fA-F]{2})*$/.test(data) || data.length / 2 !== Number(length)) return { error: `${form}: the data must be ${length} bytes of hexadecimal` };
  const wire = Buffer.from(data, 'hex');
  const labels: string[] = [];
  let at = 0;
  while (at < wire.length && wire[at] !== 0) {
    const size = wire[at]!;
    if (size > 63 || at + 1 + size > wire.length) return { error: `${form}: the data is not a domain name in wire format` };
    labels.push(wire.subarray(at + 1, at + 1 + size).toString('ascii'));
    at += 1 + size;
  }
  if (at !== wire.length - 1) return { error: `${form}: the data is not a domain name in wire format` };
  return { target: `${labels.join('.')}.` };
}
