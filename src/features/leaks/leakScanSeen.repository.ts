import type { Queryable } from '../../db/pool.js';

/** The hashes among `tokenHashes` the leak scan has already handled. */
export async function findSeenTokenHashes(db: Queryable, tokenHashes: string[]): Promise<Set<string>> {
  if (tokenHashes.length === 0) return new Set();
  const { rows } = await db.query<{ token_hash: string }>('SELECT token_hash FROM leak_scan_seen WHERE token_hash = ANY($1::text[])', [tokenHashes]);
  return new Set(rows.map((row) => row.token_hash));
}

/** Records tokens as handled; the first sighting (time and place) is kept. */
export async function markTokensSeen(db: Queryable, seen: { tokenHash: string; sourceUrl: string }[]): Promise<void> {
  if (seen.length === 0) return;
  await db.query(
    `INSERT INTO leak_scan_seen (token_hash, source_url)
     SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (token_hash) DO NOTHING`,
    [seen.map((s) => s.tokenHash), seen.map((s) => s.sourceUrl)],
  );
}
