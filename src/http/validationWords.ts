import { z } from 'zod';

/**
 * A 422's `msg` is read by people (the dashboard shows it under the field), so every schema speaks
 * in sentences rather than zod's "Too small: expected string to have >=1 characters". A schema's own
 * message still wins; this is what a field without one says (zod's own sentences where they read well).
 */
type RawIssue = Parameters<NonNullable<z.core.$ZodConfig['customError']>>[0];

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  bigint: 'a whole number',
  date: 'a date',
};

const bound = (value: number | bigint, inclusive: boolean | undefined, below: boolean): string =>
  `${inclusive === false ? (below ? 'more than' : 'less than') : below ? 'at least' : 'at most'} ${value}`;

function sizeWords(origin: string, limit: string): string {
  if (origin === 'string') return `Must be ${limit} characters long`;
  if (origin === 'array' || origin === 'set') return `Give ${limit} ${limit.endsWith(' 1') ? 'item' : 'items'}`;
  return `Must be ${limit}`;
}

export function plainValidationMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'Required' : `Must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'Must not be empty';
      return sizeWords(issue.origin, bound(issue.minimum, issue.inclusive, true));
    case 'too_big':
      return sizeWords(issue.origin, bound(issue.maximum, issue.inclusive, false));
    case 'invalid_value':
      return `Must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      // zod's own words for named formats read well ("Invalid email address"); a bare pattern does not.
      return issue.format === 'regex' ? 'Is not in the expected form' : undefined;
    case 'not_multiple_of':
      return `Must be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
}

z.config({ customError: plainValidationMessage });
