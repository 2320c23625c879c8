import { dropDatabase, ensureDatabase } from '../../src/db/migrate.js';

/**
 * Drops the bench's database and makes it again, so every run starts empty: rows an earlier run left
 * were measured as part of the next (the backfill went over every domain in the database). Only a
 * database whose name says it is the bench's is dropped.
 */
export async function freshDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (!name.includes('bench')) throw new Error(`BENCH_DATABASE_URL names "${name}": the bench drops and remakes its database at every start, so it takes only one whose name contains "bench"`);
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
}
