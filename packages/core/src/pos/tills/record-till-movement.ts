import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { toFieldErrorMap } from '@pos/domain/field-error';
import { movementPermission, signedMovementAmount, tillTransition, validateMovement, type TillMovementType } from '@pos/domain/tills/till-rules';
import type { Cents } from '@pos/domain/money';
import { moneyInOutEvent, type FiscalCommon, type FiscalEvent } from '@pos/fiscal';
import { findJournalEntry, refusedError, type FiscalSignError, type SignedFiscalEvent } from '../../fiscal/index.ts';
import { signedEventOf } from '../../fiscal/journal-rows.ts';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import { orphanSignature, runSignedChange, storedSignature, type SignedChangeFiscal, type SignedChangeKind } from '../signed-change/signed-change.ts';
import { fiscalDrawerOf, requireLocationTill } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Journal subject of a till movement. */
export const MOVEMENT_SUBJECT_TYPE = 'pos_till_movement';

export interface TillMovementInput {
  readonly type?: unknown;
  readonly amount?: unknown;
  readonly reason?: unknown;
}

/** The movement as returned: `amount` signed by direction (+ into the drawer, - out of it, 0 for a no-sale). */
export interface TillMovementResource {
  id: string;
  till_id: string;
  type: TillMovementType;
  amount: Cents;
  reason: string | null;
  staff_id: string;
  approved_by: string | null;
  /** Without `digital_signature` while a remote module has not signed it yet (its entry pending for recovery). */
  fiscal: { digital_signature?: string };
  created_at: string;
}

/** The fiscal event of a movement: money in/out (label F) with its signed amount, or a drawer open without a sale. */
function movementEvent(common: FiscalCommon, type: TillMovementType, amount: Cents, drawer: ReturnType<typeof fiscalDrawerOf>): FiscalEvent {
  if (type === 'drawer_open_no_sale') return { ...common, kind: 'drawer_open', drawer };
  return moneyInOutEvent(common, type, Math.abs(amount), drawer);
}

type MovementRow = Selectable<TenantTables['pos_till_movements']>;

const movementResource = (row: MovementRow, signed: SignedFiscalEvent | null): TillMovementResource => ({
  id: row.id,
  till_id: row.till_id,
  type: row.type,
  amount: row.amount,
  reason: row.reason,
  staff_id: row.staff_id,
  approved_by: row.approved_by,
  fiscal: signed ? { digital_signature: storedSignature(signed).digital_signature } : {},
  created_at: new Date(row.created_at).toISOString(),
});

/**
 * The movement as stored, after its remote module was unreachable (docs/decisions.md, "A till
 * movement kept for an unreachable module answers 200"): unsigned while its entry is pending, signed
 * when recovery (or the send of a later entry) completed it meanwhile. Gone: a completion since
 * refused it and took it back, 422 `fiscal_refused` as the request's own refusal; else `unreachable`.
 */
async function keptMovement(db: TenantDb, id: string, unreachable: AppError): Promise<TillMovementResource> {
  const row = await db.selectFrom('pos_till_movements').selectAll().where('id', '=', id).executeTakeFirst();
  if (row) {
    if (row.journal_id === null) return movementResource(row, null);
    const entry = await db.selectFrom('fiscal_journal').selectAll().where('id', '=', row.journal_id).executeTakeFirstOrThrow();
    return movementResource(row, signedEventOf(entry));
  }
  const entry = await findJournalEntry(db, { type: MOVEMENT_SUBJECT_TYPE, id });
  if (entry?.status === 'failed') {
    const failed = await db.selectFrom('fiscal_journal').select('sign_result').where('id', '=', entry.journal_id).executeTakeFirstOrThrow();
    throw refusedError((JSON.parse(failed.sign_result ?? 'null') as FiscalSignError | null) ?? { code: 'UNKNOWN', message: 'unreadable refusal', status: 0 });
  }
  throw unreachable;
}

/**
 * Till movements as a signed change: the movement row is the reservation (`journal_id` null until
 * signed); a signature sets `journal_id`, a refusal deletes the row (the module counted nothing).
 */
export const tillMovementChange: SignedChangeKind<{ row: MovementRow; signed: SignedFiscalEvent }> = {
  name: 'till_movement',
  subjectType: MOVEMENT_SUBJECT_TYPE,
  kept: 'the till movement',
  async finish(tx, id, signed) {
    const row = await tx.updateTable('pos_till_movements').set({ journal_id: signed.journal_id }).where('id', '=', id).where('journal_id', 'is', null).returningAll().executeTakeFirst();
    if (row) return { row, signed };
    const recorded = await tx.selectFrom('pos_till_movements').selectAll().where('id', '=', id).executeTakeFirst();
    if (!recorded) throw orphanSignature(signed, `till movement ${id} does not exist`);
    return { row: recorded, signed }; // already recorded
  },
  async undo(tx, id) {
    // Gone already, or signed by another entry: nothing to take back.
    await tx.deleteFrom('pos_till_movements').where('id', '=', id).where('journal_id', 'is', null).execute();
  },
  async unfinished(db, olderThan, limit) {
    return (await db.selectFrom('pos_till_movements').select('id').where('journal_id', 'is', null).where('created_at', '<=', olderThan).orderBy('created_at').limit(limit).execute()).map((r) => r.id);
  },
};

/**
 * `POST /pos/tills/{tillId}/movements`, body `{type, amount, reason?, approval_token?}`.
 *
 * - `amount` is a positive integer of cents, signed on the server by direction (`paid_in`,
 *   `float_issue` +; `paid_out`, `float_return` -); `drawer_open_no_sale` carries 0 or no amount.
 *   Field errors are 422.
 * - Permissions: cash going out (`paid_out`, `float_return`) needs `till_paid_out`,
 *   `drawer_open_no_sale` needs `no_sale`; cash coming in (`paid_in`, `float_issue`) needs
 *   `open_till`, the permission of whoever runs a till's cash. A missing permission is 403 (escalate, retry with `approval_token`).
 * - Only an OPEN till of this location moves cash (409 `till_not_open` / `till_closed`; 404 for
 *   another location's). After the Z close of the day: 409 `business_day_closed`.
 * - Each movement is signed as a fiscal event with the till's drawer identity, in the transaction
 *   that records it: `money_in_out` (signed amount) or `drawer_open` for a no-sale. With a remote
 *   module, the movement commits with its pending entry; a refusal takes it back (422
 *   `fiscal_refused`), an unreachable module answers 200 with the movement unsigned (`fiscal`
 *   without `digital_signature`), its entry left pending for the `fiscal.recover` sweep.
 */
export async function recordTillMovement(
  db: TenantDb,
  fiscal: SignedChangeFiscal,
  actor: RegisterActor,
  authorizer: StaffAuthorizer,
  tillId: string,
  body: TillMovementInput,
  now: Date,
): Promise<TillMovementResource> {
  await requireLocationTill(db, actor.locationId, tillId);
  const invalid = validateMovement(body);
  if (invalid.length) throw errors.validation(toFieldErrorMap(invalid));
  const type = body.type as TillMovementType;
  const amount = signedMovementAmount(type, (body.amount as number | null | undefined) ?? null);
  const reason = typeof body.reason === 'string' && body.reason.trim() !== '' ? body.reason.trim().slice(0, 500) : null;
  const approvedBy = await authorizer.require(movementPermission(type) ?? 'open_till');
  const id = Bun.randomUUIDv7();

  return runSignedChange(
    db,
    fiscal,
    tillMovementChange,
    {
      locationId: actor.locationId,
      async prepare(tx) {
        // Lock order of every booking: business day, then till, then the fiscal journal head.
        const day = await requireOpenBusinessDay(tx, actor.locationId, now);
        const till = await requireLocationTill(tx, actor.locationId, tillId, { lock: true });
        const t = tillTransition({ state: till.state, counted: till.counted !== null }, 'movement');
        if (t.kind === 'refused') throw errors.conflict(t.message, { reason: t.reason });
        await tx
          .insertInto('pos_till_movements')
          .values({ id, till_id: till.id, type, amount, reason, staff_id: actor.staffId, approved_by: approvedBy, journal_id: null, created_at: now })
          .execute();
        const drawer = fiscalDrawerOf(till);
        return {
          subjectId: id,
          state: null,
          input: {
            locationId: actor.locationId,
            deviceId: actor.deviceId,
            employeeId: actor.staffId,
            businessDay: day,
            build: (common: FiscalCommon) => movementEvent(common, type, amount, drawer),
          },
        };
      },
      respond: ({ row, signed }): TillMovementResource => movementResource(row, signed),
    },
    now,
  ).catch((e: unknown) => {
    // Like a fire (docs/decisions.md "Fires are signed"), an unreachable module does not fail the
    // movement: it committed with its pending entry, the cash has moved, and the `fiscal.recover`
    // sweep signs it. A 503 made the register retry (spec 2: a 5xx is transient) and record the cash
    // a second time, both signed later and both counted in the till's expected cash. A refusal stays
    // 422 `fiscal_refused` with the movement taken back (`runSignedChange`).
    if (e instanceof AppError && e.reason === 'fiscal_unreachable') return keptMovement(db, id, e);
    throw e;
  });
}
