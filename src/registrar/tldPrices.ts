import type { Queryable } from '../db/pool.js';
import type { PriceTable } from './port.js';

export async function loadPriceTable(db: Queryable): Promise<PriceTable> {
  const { rows } = await db.query<{ tld: string; register: number; renew: number; transfer: number }>(
    `SELECT tld, register_price AS register, renew_price AS renew, transfer_price AS transfer
     FROM tld_prices WHERE enabled ORDER BY tld`,
  );
  return { currency: 'USD', tlds: Object.fromEntries(rows.map(({ tld, ...prices }) => [tld, prices])) };
}
