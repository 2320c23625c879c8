import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import './validationWords.js';

const Body = z
  .object({
    name: z.string().min(1),
    note: z.string().max(5).optional(),
    years: z.number().int().min(1).max(10),
    tags: z.array(z.string()).min(1),
    kind: z.enum(['a', 'b']),
    code: z.string().regex(/^[A-Z]{3}$/).optional(),
    titled: z.string().min(1, 'Give it a title'),
  })
  .strict();

const messages = (input: unknown) => Object.fromEntries(Body.safeParse(input).error!.issues.map((i) => [i.path.join('.') || '(body)', i.message]));

describe('validation messages a person reads', () => {
  it('says what each field needs in words, and keeps a schema’s own message', () => {
    expect(messages({ name: '', note: 'too long', years: 11, tags: [], kind: 'c', code: 'usd', titled: '', extra: 1 })).toEqual({
      name: 'Must not be empty',
      note: 'Must be at most 5 characters long',
      years: 'Must be at most 10',
      tags: 'Give at least 1 item',
      kind: 'Must be one of "a", "b"',
      code: 'Is not in the expected form',
      titled: 'Give it a title',
      '(body)': 'Unrecognized key: "extra"',
    });
    expect(messages({ years: 'three', tags: ['x'], kind: 'a', titled: 't' })).toEqual({ name: 'Required', years: 'Must be a number' });
  });
});
