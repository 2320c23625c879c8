/**
 * Bodies that are not zone files, each exactly `bytes` long (ASCII), shaped to cost a zone file
 * reader the most: one per way a reader can be made to hold memory or time (src/features/dns/zoneFileTokens.ts).
 */
export function junkZoneFiles(bytes: number): Record<string, string> {
  const fill = (unit: string, head = '') => {
    const body = head + unit.repeat(Math.ceil((bytes - head.length) / unit.length));
    return body.slice(0, bytes);
  };
  return {
    'only ")"': fill(')'),
    'only "("': fill('('),
    'one quoted string never closed': fill('a', 'www TXT "'),
    'lines of records without an owner': fill(' A 192.0.2.1\n'),
    'escaped backslashes': fill('\\\\', 'www TXT '),
    'one token': fill('a'),
  };
}
