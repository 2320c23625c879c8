/**
 * Request values for the fuzz suite: valid-looking values generated from a route's zod schema (through
 * zod's own JSON Schema export, which sees the same shapes the OpenAPI document shows), then hostile
 * mutations applied at random places in them. Our own small mapping: the libraries that derive
 * fast-check arbitraries from zod target zod 3.
 */
import fc from 'fast-check';
import { z } from 'zod';

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
};

/** Names people and registrars actually send: ASCII, IDN, punycode, and the almost-valid. */
export const DOMAIN_NAMES = [
  'example.com',
  'bücher.de',
  'xn--bcher-kva.de',
  '例え.jp',
  'EXAMPLE.COM.',
  'a..com',
  '-bad-.com',
  'xn--.com',
  `${'a'.repeat(64)}.com`,
  `${'a.'.repeat(130)}com`,
  '.',
  'localhost',
  '１２７.０.０.１',
  'exa\u200bmple.com',
  'ex\u0000ample.com',
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...DOMAIN_NAMES) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern fast-check cannot generate from: plain strings instead.
    }
  }
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
  return fc.oneof(fc.string({ minLength, maxLength }), text);
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
  const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  return integer ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }) : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
}

/** An arbitrary producing values the JSON Schema describes (refinements aside). */
export function fromJsonSchema(schema: JsonSchema, root: JsonSchema = schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/$defs/', '');
    const target = root.$defs?.[name];
    return target && depth < 8 ? fromJsonSchema(target, root, depth + 1) : fc.constant(null);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => fromJsonSchema(s, root, depth + 1)));
  if (schema.allOf?.[0]) return fromJsonSchema(schema.allOf[0], root, depth + 1);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => fromJsonSchema({ ...schema, type }, root, depth)));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const item = schema.items ? fromJsonSchema(schema.items, root, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(item, { minLength, maxLength: Math.min(schema.maxItems ?? 5, minLength + 5) });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const entries = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, fromJsonSchema(s, root, depth + 1)]));
      return fc.record(entries, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values for a request part's zod schema, as a client would send them (the input side of transforms). */
export function fromZod(schema: z.ZodType): fc.Arbitrary<unknown> {
  return fromJsonSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}

/** What replaces a value at a chosen place. */
const HOSTILE_VALUES: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x\udc00y',
    '\u0007\u001b[31m\u007f\u0085',
    '',
    ' ',
    '\u202eevil',
    '%00',
    '../..',
    '${jndi:ldap://x}',
    "'; DROP TABLE domains; --",
    'x'.repeat(10_000),
    'é'.repeat(70_000),
    1e308,
    -1e308,
    2 ** 53 + 1,
    -0,
    5e-324,
    0,
    -1,
    true,
    null,
    [],
    {},
    [[[[]]]],
    JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    { constructor: { prototype: { polluted: true } } },
  ),
  fc.constantFrom(...DOMAIN_NAMES),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Every place in a JSON value down to 80 levels, as key paths (the root is `[]`). */
function places(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (path.length >= 80) return out;
  if (Array.isArray(value)) value.forEach((item, i) => places(item, [...path, i], out));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) places(item, [...path, key], out);
  return out;
}

function setAt(value: unknown, path: (string | number)[], replacement: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replacement(value);
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[head!] = setAt(copy[head!], rest, replacement);
  return copy;
}

/** Nesting too deep to build as a value (JSON.stringify would overflow): a marker `toWire` expands. */
const DEEP_MARKER = /"@@deep:(\d+):(array|object)@@"/g;

const nest = (inner: unknown, levels: number, asArray: boolean): unknown => {
  if (levels > 100) return `@@deep:${levels}:${asArray ? 'array' : 'object'}@@`;
  let value = inner;
  for (let i = 0; i < levels; i += 1) value = asArray ? [value] : { a: value };
  return value;
};

export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'nest'; at: number; levels: number; asArray: boolean }
  | { kind: 'extra'; at: number; key: string; value: unknown }
  | { kind: 'drop'; at: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: HOSTILE_VALUES }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nest' as const), at: fc.nat(), levels: fc.oneof(fc.integer({ min: 1, max: 70 }), fc.constant(10_000)), asArray: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('extra' as const), at: fc.nat(), key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'id', 'org_id', 'livemode', 'version', 'a\u0000')), value: HOSTILE_VALUES }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
);

/** `value` with each mutation applied at the place its index picks. */
export function mutate(value: unknown, mutations: Mutation[]): unknown {
  let current = value;
  for (const m of mutations) {
    const all = places(current);
    const path = all[m.at % all.length]!;
    if (m.kind === 'replace') current = setAt(current, path, () => m.value);
    else if (m.kind === 'nest') current = setAt(current, path, (old) => nest(old, m.levels, m.asArray));
    else if (m.kind === 'extra') current = setAt(current, path, (old) => (old && typeof old === 'object' && !Array.isArray(old) ? { ...old, [m.key]: m.value } : old));
    else if (path.length > 0) {
      const parentPath = path.slice(0, -1);
      const last = path[path.length - 1]!;
      current = setAt(current, parentPath, (parent) => {
        if (Array.isArray(parent)) return (parent as unknown[]).filter((_, i) => i !== last);
        if (parent && typeof parent === 'object') return Object.fromEntries(Object.entries(parent).filter(([k]) => k !== last));
        return parent;
      });
    }
  }
  return current;
}

/** A (mutated) value as JSON text, deep-nesting markers expanded. */
export function toWire(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(DEEP_MARKER, (_, levels: string, kind: string) => {
    const n = Number(levels);
    return kind === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  });
}

/** Bodies as bytes on the wire: mostly JSON of a (mutated) value, sometimes not JSON at all. */
export const rawBodyTweak = fc.oneof(
  { weight: 12, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":1,}', 'null', '[]', '"text"', '1e999', '{"a":1e999}', '\ufeff{}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '[' .repeat(5_000)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
);
