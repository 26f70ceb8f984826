import { createHash, randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { CentralDb, CentralTables } from '@pos/db';

/**
 * Printer tokens (issue 15 point 4): shown once, kept only as a SHA-256 hash, bound to one printer and
 * merchant. One live token per printer: a new one replaces the row, so the old one fails at once.
 */
/** NOTIFY channel: a printer's token was minted or revoked (payload: printer id); poll services drop what they cached. */
export const PRINTER_TOKENS_CHANNEL = 'printer_tokens';

export const hashPrinterToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface PrinterTokenOwner {
  merchant_id: string;
  tenant_database: string;
  printer_id: string;
}

export async function mintPrinterToken(db: CentralDb | Transaction<CentralTables>, owner: PrinterTokenOwner): Promise<string> {
  const token = `prt_${randomBytes(24).toString('base64url')}`;
  await db
    .insertInto('printer_tokens')
    .values({ ...owner, token_hash: hashPrinterToken(token) })
    .onConflict((oc) => oc.columns(['merchant_id', 'printer_id']).doUpdateSet({ token_hash: (eb) => eb.ref('excluded.token_hash'), created_at: new Date() }))
    .execute();
  await sql`select pg_notify(${PRINTER_TOKENS_CHANNEL}, ${owner.printer_id})`.execute(db);
  return token;
}

export async function revokePrinterToken(db: CentralDb | Transaction<CentralTables>, merchantId: string, printerId: string): Promise<void> {
  await db.deleteFrom('printer_tokens').where('merchant_id', '=', merchantId).where('printer_id', '=', printerId).execute();
  await sql`select pg_notify(${PRINTER_TOKENS_CHANNEL}, ${printerId})`.execute(db);
}

/** The printer a token belongs to, or null (unknown, rotated or retired: the caller says nothing more). */
export async function resolvePrinterToken(db: CentralDb, token: string | undefined): Promise<PrinterTokenOwner | null> {
  if (!token || token.length > 200) return null;
  const row = await db.selectFrom('printer_tokens').select(['merchant_id', 'tenant_database', 'printer_id']).where('token_hash', '=', hashPrinterToken(token)).executeTakeFirst();
  return row ?? null;
}
