import { sql } from 'kysely';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { CentralDb, CentralTables, TenantDb, TenantTx } from '@pos/db';
import { isMissingRelation } from '../webhooks/tenant-resolution.ts';
import type { Transaction } from 'kysely';
import { errors } from '@pos/kernel';
import { TERMINAL_TAKEN, type TerminalProvider } from '../pos-admin/register-records.ts';
import { atTerminalProvider } from './device-provider.ts';

/**
 * One payment terminal takes the payments of one till point: a card terminal (provider + id) is bound
 * to at most one live kiosk (`devices.card_b_terminal_id`, `card_a_reader_id`, `platform_a_device_id`)
 * or one live register (`pos_registers.terminal`) of the merchant. Both binding paths
 * (`PUT /devices/{id}` for a kiosk, `pair-terminal` for a register) take `lockTerminal` before they
 * look, so two bindings of one terminal run one after the other and the second sees the first.
 */

/** The kiosk column that holds each provider's terminal. */
export const KIOSK_TERMINAL_COLUMNS = {
  'card-a': 'card_a_reader_id',
  'card-b': 'card_b_terminal_id',
  'platform-a': 'platform_a_device_id',
} as const satisfies Record<TerminalProvider, string>;

/** The kiosk terminal fields `PUT /devices/{id}` takes, and their providers (platform-a devices are paired by code). */
export const KIOSK_TERMINAL_FIELDS = {
  card_b_terminal_id: 'card-b',
  card_a_reader_id: 'card-a',
} as const satisfies Partial<Record<(typeof KIOSK_TERMINAL_COLUMNS)[TerminalProvider], TerminalProvider>>;
export type KioskTerminalField = keyof typeof KIOSK_TERMINAL_FIELDS;

/**
 * The form of a terminal id, once trimmed: 1-64 letters, digits, `_`, `.`, `:` or `-`. A card-a reader
 * id is card-a's (`tmr_…`, PROTOCOLS.md "card-a"). The patterns also let the route's schema through
 * surrounding white space, which the use case trims.
 */
export const TERMINAL_ID_PATTERN = '[A-Za-z0-9_.:-]{1,64}';
export const CARD_A_READER_PATTERN = 'tmr_[A-Za-z0-9_.:-]{1,60}';
export const TERMINAL_ID_FORMAT: Readonly<Record<KioskTerminalField, string>> = {
  card_b_terminal_id: 'The card b terminal id must be 1 to 64 letters, digits or _ . : - characters, or null.',
  card_a_reader_id: 'The card a reader id must be a card-a reader id: tmr_ followed by up to 60 letters, digits or _ . : - characters, or null.',
};
export const READER_UNKNOWN = 'card-a has no terminal reader with this id.';

/** The form error of a trimmed terminal id, or null. */
export function terminalIdErrors(field: KioskTerminalField, terminalId: string): string | null {
  const pattern = field === 'card_a_reader_id' ? CARD_A_READER_PATTERN : TERMINAL_ID_PATTERN;
  return new RegExp(`^${pattern}$`).test(terminalId) ? null : TERMINAL_ID_FORMAT[field];
}

/**
 * 422 on `card_a_reader_id` unless card-a knows the reader (`GET /v1/terminal/readers/{id}`: 404, or a
 * deleted reader, is none); card-a not answering (unreachable, 5xx, our key refused) is 503
 * `provider_error`, as every device route's card-a call (device-provider.ts).
 */
export async function requireCardAReaderExists(cardA: CardAClient, readerId: string): Promise<void> {
  const reader = await atTerminalProvider('card-a', () =>
    cardA.retrieveReader(readerId).catch((e: unknown) => {
      if (e instanceof ProviderError && e.kind === 'http' && e.status === 404) return null;
      throw e;
    }),
  );
  if (!reader || (reader as { deleted?: unknown }).deleted === true) throw errors.field('card_a_reader_id', READER_UNKNOWN);
}

/** A kiosk binding a terminal another kiosk holds. */
export const TERMINAL_BOUND_TO_OTHER_KIOSK = 'This terminal is already bound to another kiosk.';
/** A register pairing a terminal a kiosk holds. */
export const TERMINAL_BOUND_TO_KIOSK = 'This terminal is already bound to a kiosk.';
/** A kiosk binding a terminal a register is paired with. */
export const TERMINAL_PAIRED_WITH_REGISTER = 'This terminal is already paired with a register.';

/**
 * A transaction lock on one terminal (provider + id), released at commit. The key is the one
 * `pair-terminal` has always taken, so kiosk and register bindings of one terminal serialise. Callers
 * taking several take them in `terminalLockOrder`, and after their row locks on locations.
 */
export async function lockTerminal(tx: TenantDb | TenantTx, provider: TerminalProvider, terminalId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${terminalLockKey(provider, terminalId)}, 0))`.execute(tx);
}

export const terminalLockKey = (provider: TerminalProvider, terminalId: string) => `pair-terminal:${provider}:${terminalId}`;

/** Sorts bindings by lock key: two writers taking several terminal locks always take them in one order. */
export function terminalLockOrder<T extends { provider: TerminalProvider; terminalId: string }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => (terminalLockKey(a.provider, a.terminalId) < terminalLockKey(b.provider, b.terminalId) ? -1 : 1));
}

/**
 * 409 when a live device of the merchant (other than `exceptDeviceId`, the kiosk being edited) holds the
 * terminal. Only kiosks carry terminals. Call under `lockTerminal`.
 */
export async function requireTerminalFreeOfKiosks(tx: TenantDb | TenantTx, provider: TerminalProvider, terminalId: string, exceptDeviceId?: string): Promise<void> {
  let q = tx.selectFrom('devices').select('id').where(KIOSK_TERMINAL_COLUMNS[provider], '=', terminalId).where('deleted_at', 'is', null);
  if (exceptDeviceId) q = q.where('id', '<>', exceptDeviceId);
  if (await q.executeTakeFirst()) throw errors.conflict(exceptDeviceId ? TERMINAL_BOUND_TO_OTHER_KIOSK : TERMINAL_BOUND_TO_KIOSK);
}

/** A card-a reader another merchant's kiosk holds. */
export const READER_HELD_ELSEWHERE = 'This card-a reader is bound to a kiosk of another account.';

/**
 * 409 when a live kiosk of ANOTHER merchant holds the card-a reader: card-a's reader events find their
 * merchant by the reader alone (`tenantOfCardAReader`), and a reader two merchants named would resolve to
 * none, so the first one's kiosk would stop hearing its payments. Call under `lockTerminal` (its key is
 * the same in every schema, so two merchants binding one reader take turns).
 */
export async function requireReaderFreeElsewhere(central: CentralDb | Transaction<CentralTables>, readerId: string, merchantId: string): Promise<void> {
  const merchants = await central.selectFrom('merchants').select(['id', 'tenant_database']).where('id', '<>', merchantId).execute();
  for (const m of merchants) {
    const held = await sql<{ id: string }>`select id from ${sql.id(m.tenant_database)}.devices where card_a_reader_id = ${readerId} and deleted_at is null limit 1`
      .execute(central)
      .then((r) => r.rows.length > 0, (e: unknown) => (isMissingRelation(e) ? false : Promise.reject(e)));
    if (held) throw errors.conflict(READER_HELD_ELSEWHERE);
  }
}

/**
 * 409 when a live register of the merchant (other than `exceptRegisterId`, the register being paired:
 * `TERMINAL_TAKEN`) is paired with the terminal. Call under `lockTerminal`.
 */
export async function requireTerminalFreeOfRegisters(tx: TenantDb | TenantTx, provider: TerminalProvider, terminalId: string, exceptRegisterId?: string): Promise<void> {
  let q = tx
    .selectFrom('pos_registers')
    .select('id')
    .where('retired_at', 'is', null)
    .where(sql<string>`terminal->>'provider'`, '=', provider)
    .where(sql<string>`terminal->>'terminal_id'`, '=', terminalId);
  if (exceptRegisterId) q = q.where('id', '<>', exceptRegisterId);
  if (await q.executeTakeFirst()) throw errors.conflict(exceptRegisterId ? TERMINAL_TAKEN : TERMINAL_PAIRED_WITH_REGISTER);
}
