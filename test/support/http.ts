import type { FieldError } from '../../src/errors.js';

/** Error bodies as tests read them: a message, or field errors for 400 and 422. */
export interface MessageErrorBody {
  code: string;
  detail: string;
}
export interface FieldErrorBody {
  code: string;
  detail: FieldError[];
}

export async function readJson<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}
