import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { absolute, contentIssue, hostName, unsigned, type ContentCheck } from './recordSyntax.js';

/**
 * SVCB and HTTPS records (RFC 9460): `SvcPriority TargetName SvcParams…`, e.g.
 * `1 . alpn=h2,h3 ipv4hint=192.0.2.1`. Stored the way PowerDNS writes them back (its API refuses
 * content that is "not in expected format"): parameters in key-number order, `mandatory` keys in
 * that order too, `alpn` unquoted, `ech` quoted, IPv6 hints in RFC 5952 form; the target host name
 * without its trailing dot, as for every other type.
 */
const KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'] as const;
type Key = (typeof KEYS)[number];
const KEY_LIST = KEYS.join(', ');
const ALPN_ID = /^[A-Za-z0-9._/+-]{1,255}$/;

/** `key=value`, `key="value"` or a bare `key`, split at white space outside quotes. */
function parameters(text: string): { key: string; value: string | undefined }[] | undefined {
  if ((text.match(/"/g) ?? []).length % 2 !== 0) return undefined;
  const tokens = text.match(/(?:[^\s"]|"[^"]*")+/g) ?? [];
  return tokens.map((token) => {
    const eq = token.indexOf('=');
    if (eq < 0) return { key: token.toLowerCase(), value: undefined };
    return { key: token.slice(0, eq).toLowerCase(), value: token.slice(eq + 1).replace(/^"(.*)"$/, '$1') };
  });
}

/** An IPv6 hint as PowerDNS (inet_ntop) writes it; IPv4-embedded forms, which it writes dotted, belong in ipv4hint. */
function ipv6Hint(address: string): string | undefined {
  if (!isIPv6(address) || address.includes('%')) return undefined;
  const parsed = ipaddr.IPv6.parse(address);
  const [a, b, c, d, e, f, g] = parsed.parts;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0xffff || (f === 0 && g !== 0))) return undefined;
  return parsed.toRFC5952String();
}

/** One parameter's value, normalised, or what it must be. */
function parameterValue(key: Key, value: string | undefined): { value: string | undefined } | { problem: string } {
  const list = (value ?? '').split(',');
  switch (key) {
    case 'no-default-alpn':
      return value === undefined ? { value } : { problem: 'no-default-alpn takes no value' };
    case 'mandatory': {
      const order = list.map((k) => KEYS.indexOf(k.toLowerCase() as Key));
      if (value === undefined || order.some((i) => i < 1)) return { problem: `mandatory must list the other keys it makes mandatory, e.g. mandatory=alpn,port (keys: ${KEYS.slice(1).join(', ')})` };
      if (new Set(order).size < order.length) return { problem: 'mandatory lists a key twice' };
      return { value: order.sort((x, y) => x - y).map((i) => KEYS[i]).join(',') };
    }
    case 'alpn':
      return value !== undefined && list.every((id) => ALPN_ID.test(id))
        ? { value }
        : { problem: 'alpn must be protocol ids separated by commas, e.g. alpn=h2,h3 (letters, digits, ".", "_", "/", "+", "-")' };
    case 'port':
      return unsigned(value, 65_535) !== undefined ? { value: String(Number(value)) } : { problem: 'port must be 0–65535, e.g. port=8443' };
    case 'ipv4hint':
      return value !== undefined && list.every((ip) => isIPv4(ip)) ? { value } : { problem: 'ipv4hint must be IPv4 addresses separated by commas, e.g. ipv4hint=192.0.2.1,192.0.2.2' };
    case 'ipv6hint': {
      const hints = list.map(ipv6Hint);
      return value !== undefined && hints.every((h) => h !== undefined)
        ? { value: hints.join(',') }
        : { problem: 'ipv6hint must be IPv6 addresses separated by commas, e.g. ipv6hint=2001:db8::1 (IPv4 addresses go in ipv4hint)' };
    }
    case 'ech':
      return value && Buffer.from(value, 'base64').toString('base64') === value
        ? { value: `"${value}"` }
        : { problem: 'ech must be the ECHConfigList in base64 (standard alphabet, with padding)' };
  }
}

export function checkSvcb(type: 'SVCB' | 'HTTPS', content: string): ContentCheck {
  const bad = (message: string) => contentIssue(message, `${type.toLowerCase()}_invalid`);
  const match = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(content.trim());
  if (!match) return bad(`Must be "SvcPriority TargetName SvcParams", e.g. "1 . alpn=h2,h3" (service mode) or "0 cdn.example.net" (alias mode)`);
  const priority = unsigned(match[1], 65_535);
  if (priority === undefined) return bad('SvcPriority must be 0–65535: 0 for alias mode, 1 or more for service mode (lower is preferred)');
  const target = match[2] === '.' ? '.' : hostName(match[2]!, { underscores: true });
  if (!target) return bad('TargetName must be a fully qualified host name such as svc.example.net, or "." for the record’s own name');
  const given = parameters(match[3] ?? '');
  if (!given) return bad('SvcParams must be key=value pairs separated by spaces, e.g. alpn=h2,h3 port=8443');
  if (priority === 0 && given.length > 0) return bad('SvcParams: alias mode (SvcPriority 0) takes none; give them on the target’s own records');
  const values = new Map<Key, string | undefined>();
  for (const { key, value } of given) {
    if (!(KEYS as readonly string[]).includes(key)) return bad(`SvcParams: "${key.slice(0, 30)}" is not supported; use ${KEY_LIST}`);
    if (values.has(key as Key)) return bad(`SvcParams: ${key} is given twice`);
    const checked = parameterValue(key as Key, value);
    if ('problem' in checked) return bad(`SvcParams: ${checked.problem}`);
    values.set(key as Key, checked.value);
  }
  const missing = (values.get('mandatory') ?? '').split(',').filter((k) => k !== '' && !values.has(k as Key));
  if (missing.length > 0) return bad(`SvcParams: mandatory names ${missing.join(', ')}, which the record does not give`);
  if (values.has('no-default-alpn') && !values.has('alpn')) return bad('SvcParams: no-default-alpn needs alpn as well (the protocols that are supported)');
  const params = KEYS.filter((k) => values.has(k)).map((k) => (values.get(k) === undefined ? k : `${k}=${values.get(k)}`));
  return { content: [priority, target, ...params].join(' ') };
}

/** The stored form with the target written absolute. */
export function presentSvcb(content: string): string {
  const [priority, target, ...params] = content.split(' ');
  return [priority, absolute(target!), ...params].join(' ');
}
