import { CliError } from './errors.js';

/** One record as a records file gives it: the API's own fields (content as `records list` shows it). */
export interface RecordEntry {
  name: string;
  type: string;
  content: string;
  ttl?: number | undefined;
  priority?: number | null | undefined;
}

/** A file of records to apply: a zone file as it is, or YAML turned into one (each record on a line of its own). */
export interface RecordsFile {
  zoneFile: string;
  /** What a zone file line stands for in the file the person wrote: `line 7`, or `records[2] (www A)`. */
  where: (line: number) => string;
}

const isYaml = (file: string) => /\.(ya?ml|json)$/i.test(file);

/**
 * `records apply` reads YAML (`.yaml`, `.yml`, `.json`) or an RFC 1035 zone file (anything else).
 * YAML is a list of records, or `{records: [...]}`:
 *
 *     records:
 *       - { name: www, type: A, content: 192.0.2.10, ttl: 300 }
 *       - { name: "@", type: MX, priority: 10, content: mail.example.net }
 */
export async function readRecordsFile(file: string, text: string, domain: string, format?: 'yaml' | 'zone'): Promise<RecordsFile> {
  if ((format ?? (isYaml(file) ? 'yaml' : 'zone')) === 'zone') return { zoneFile: text, where: (line) => `line ${line}` };
  const entries = recordsFromYaml(text, file, (await import('yaml')).parse);
  return zoneFileOf(domain, entries);
}

export function recordsFromYaml(text: string, file: string, parse: (text: string) => unknown): RecordEntry[] {
  let document: unknown;
  try {
    document = parse(text);
  } catch (err) {
    throw new CliError(`${file} is not YAML: ${(err as Error).message}`, 'usage', 'RECORDS_FILE_INVALID');
  }
  const list = Array.isArray(document) ? document : (document as { records?: unknown } | null)?.records;
  if (!Array.isArray(list)) throw new CliError(`${file}: give a list of records, or records: [...]`, 'usage', 'RECORDS_FILE_INVALID');
  return list.map((item: unknown, i) => {
    const entry = (item ?? {}) as Record<string, unknown>;
    const problem = (what: string) => new CliError(`${file}: records[${i}] ${what}`, 'usage', 'RECORDS_FILE_INVALID');
    if (typeof entry.type !== 'string') throw problem('needs a type (A, AAAA, CNAME, MX, TXT, …)');
    if (typeof entry.content !== 'string' && typeof entry.content !== 'number') throw problem('needs content, e.g. 192.0.2.10');
    if (entry.name !== undefined && typeof entry.name !== 'string') throw problem('has a name that is not text (quote "@")');
    for (const field of ['ttl', 'priority'] as const) {
      if (entry[field] !== undefined && entry[field] !== null && !Number.isInteger(entry[field])) throw problem(`has a ${field} that is not a whole number`);
    }
    return {
      name: (entry.name) ?? '@',
      type: entry.type.toUpperCase(),
      content: String(entry.content),
      ttl: entry.ttl as number | undefined,
      priority: entry.priority as number | null | undefined,
    };
  });
}

const absolute = (name: string) => (name === '.' || name.endsWith('.') ? name : `${name}.`);

/** TXT text as zone-file strings: quoted, `"` and `\` escaped, split every 255 characters. */
function txtStrings(text: string): string {
  const chunks = text.match(/[\s\S]{1,255}/g) ?? [''];
  return chunks.map((chunk) => `"${chunk.replace(/[\\"]/g, '\\$&')}"`).join(' ');
}

/** A record's data in zone-file form: names in the data made absolute, MX and SRV priorities in front. */
export function rdata(entry: RecordEntry): string {
  const fields = entry.content.trim().split(/\s+/);
  switch (entry.type) {
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'ALIAS':
      return absolute(entry.content.trim());
    case 'MX':
      return `${entry.priority ?? 0} ${absolute(entry.content.trim())}`;
    case 'SRV':
      return `${entry.priority ?? 0} ${fields.slice(0, -1).join(' ')} ${absolute(fields.at(-1)!)}`;
    case 'HTTPS':
    case 'SVCB':
      return [fields[0], absolute(fields[1] ?? '.'), ...fields.slice(2)].join(' ');
    case 'NAPTR':
      return `${entry.content.trim().slice(0, entry.content.trim().lastIndexOf(' '))} ${absolute(fields.at(-1)!)}`;
    case 'TXT':
      return txtStrings(entry.content);
    default:
      return entry.content.trim();
  }
}

const HEADER_LINES = 2;

/** YAML records as a zone file for `domain`, one record per line, so an error's line names its entry. */
export function zoneFileOf(domain: string, entries: RecordEntry[]): RecordsFile {
  const owner = (name: string) => (name.trim() === '' ? '@' : name.trim());
  const lines = [`$ORIGIN ${absolute(domain)}`, '$TTL 3600', ...entries.map((e) => `${owner(e.name)} ${e.ttl ?? 3600} IN ${e.type} ${rdata(e)}`)];
  return {
    zoneFile: `${lines.join('\n')}\n`,
    where: (line) => {
      const index = line - HEADER_LINES - 1;
      const entry = entries[index];
      return entry ? `records[${index}] (${owner(entry.name)} ${entry.type})` : `line ${line}`;
    },
  };
}
