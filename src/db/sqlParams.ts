/**
 * The values of one statement built in code, numbered as they are added: `p.add(value)` returns the
 * placeholder to write (`$3`), so no statement numbers its parameters by hand and no value is ever
 * written into SQL text.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** `taken`: placeholders the statement numbers before these (`$1` of a ModeScopedTable is its mode). */
  constructor(private readonly taken = 0) {}

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.taken + this.values.length}`;
  }
}
