/**
 * A zone file of `count` records as another DNS host exports one: BIND style, an SOA over several
 * lines with comments, the host's apex NS records, `$TTL`, omitted owners, relative and absolute
 * names, and a mix of types (A, AAAA, CNAME, MX, TXT with DKIM-length keys split in strings, SRV, CAA).
 */
export function otherProviderZoneFile(zone: string, count: number): { text: string; records: number } {
  const lines = [
    `; Zone file for ${zone}, exported by another host`,
    `$ORIGIN ${zone}.`,
    '$TTL 3600',
    `@ IN SOA ns1.other-host.example. hostmaster.${zone}. (`,
    '        2026112501 ; serial',
    '        7200       ; refresh',
    '        3600       ; retry',
    '        1209600    ; expire',
    '        300 )      ; minimum',
    '@ 86400 IN NS ns1.other-host.example.',
    '@ 86400 IN NS ns2.other-host.example.',
  ];
  const key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(8);
  let records = 0;
  for (let i = 0; records < count; i += 1) {
    records += i % 10 === 5 ? 2 : 1;
    const host = `host${i}`;
    switch (i % 10) {
      case 0:
      case 1:
      case 2:
        lines.push(`${host} 300 IN A 192.0.${(i >> 8) & 255}.${i & 255}`);
        break;
      case 3:
        lines.push(`${host} IN AAAA 2001:db8::${i.toString(16)}`);
        break;
      case 4:
        lines.push(`${host} CNAME host${i - 4}.${zone}.`);
        break;
      case 5:
        lines.push(`${host} MX 10 mx1.mail-host.example.`, `\tMX 20 mx2.mail-host.example.`);
        break;
      case 6:
        lines.push(`sel${i}._domainkey TXT ( "v=DKIM1; k=rsa; " ; key in parts`, `    "p=${key.slice(0, 200)}" "${key.slice(200)}" )`);
        break;
      case 7:
        lines.push(`_sip._tcp.${host} SRV 10 5 5060 sip.voip-host.example.`);
        break;
      case 8:
        lines.push(`${host} TXT "site-verification=${i}" ; verified`);
        break;
      default:
        lines.push(`${host} CAA 0 issue "letsencrypt.org"`);
    }
  }
  return { text: `${lines.join('\n')}\n`, records };
}

/**
 * Zone files that are nothing but problems, each `bytes` long (a request's limit): a `)` never
 * opened at every byte; one entry in parentheses of a word every two bytes; a one-word line every
 * two bytes. What a file costs to be refused is what its parser keeps while reading it.
 */
export function junkZoneFiles(bytes: number): { shape: string; text: string }[] {
  const opened = `(${' a'.repeat(Math.ceil(bytes / 2))}`;
  return [
    { shape: 'unopened )', text: ')'.repeat(bytes) },
    { shape: 'one ( of words', text: opened.slice(0, bytes) },
    { shape: 'one-word lines', text: 'a\n'.repeat(Math.ceil(bytes / 2)).slice(0, bytes) },
  ];
}
