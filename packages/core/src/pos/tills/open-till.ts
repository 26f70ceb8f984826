import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { errors, type FieldErrors } from '@pos/kernel';
import { freeDrawers, isTillMode, MAX_TILL_CENTS, receptacleConflict, receptacleOf, type ExistingTill, type TillMode } from '@pos/domain/tills/till-rules';
import type { Cents } from '@pos/domain/money';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { isUuidText } from '../orders/order-queries.ts';
import { requireOpenBusinessDay } from '../business-day/business-day-queries.ts';
import { drawerIdentity, isUniqueViolation, toTillResource, walletDrawer, type TillDrawer, type TillResource } from './till-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Spec 2 till rule 2: the only keys `POST /pos/tills` accepts. */
export const OPEN_TILL_KEYS = ['mode', 'opening_float', 'drawer_id', 'approval_token'] as const;

export const TILL_CONFLICT_MESSAGES = {
  drawer: 'This drawer holds a till that is not closed yet. Pick a free drawer, or close that till first.',
  register: 'This register holds a till that is not closed yet. Close it before opening another.',
  wallet: 'You hold a till that is not closed yet. Close it before opening another.',
  pick: 'Several drawers are free: send the drawer_id of the one to open the till on.',
  none_free: 'Every drawer of this location holds a till that is not closed yet.',
} as const;
export const NO_DRAWER_MESSAGE = 'This location has no drawer: open a staff_wallet till, or add a drawer in the back office.';

export interface OpenTillInput {
  readonly mode: TillMode;
  readonly opening_float: Cents;
  readonly drawer_id: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the body of `POST /pos/tills`. Any key other than `mode`, `opening_float`, `drawer_id` and
 * `approval_token` (notably `drawer_descriptor`, which the register must never send) is 422 naming
 * the accepted keys; `mode` is `register_drawer` or `staff_wallet`; `opening_float` an integer of
 * cents >= 0; `drawer_id` a UUID or null.
 */
export function readOpenTillBody(body: unknown): OpenTillInput {
  if (!isObject(body)) throw errors.field('body', 'The body must be a JSON object.');
  const errs: FieldErrors = {};
  const accepted: ReadonlySet<string> = new Set(OPEN_TILL_KEYS);
  for (const key of Object.keys(body)) {
    if (!accepted.has(key)) errs[key] = [`The ${key} field is not accepted. Send only ${OPEN_TILL_KEYS.join(', ')}.`];
  }
  if (!isTillMode(body.mode)) errs.mode = ['The mode field must be register_drawer or staff_wallet.'];
  const float = body.opening_float;
  if (float === undefined || float === null) errs.opening_float = ['The opening_float field is required.'];
  else if (typeof float !== 'number' || !Number.isSafeInteger(float) || float < 0) errs.opening_float = ['The opening_float field must be an integer of cents, 0 or more.'];
  else if (float > MAX_TILL_CENTS) errs.opening_float = [`The opening_float field may not be greater than ${MAX_TILL_CENTS}.`];
  const drawer = body.drawer_id;
  if (drawer !== undefined && drawer !== null && !isUuidText(drawer)) errs.drawer_id = ['The drawer_id field must be a drawer id (UUID).'];
  if (body.approval_token !== undefined && body.approval_token !== null && typeof body.approval_token !== 'string') errs.approval_token = ['The approval_token field must be a string.'];
  if (Object.keys(errs).length) throw errors.validation(errs);
  return { mode: body.mode as TillMode, opening_float: float as number, drawer_id: (drawer as string | null | undefined) ?? null };
}

interface DrawerRow {
  id: string;
  name: string;
  kind: 'physical' | 'virtual';
  fiscal_identity: unknown;
}

/** A candidate of the 409: the drawer id the register sends back as `drawer_id`, its frozen name and kind. */
const candidate = (d: DrawerRow): TillDrawer => ({ id: d.id, name: drawerIdentity(d).name, kind: d.kind });

/**
 * The location's live drawers. With `lock` (the opening's transaction) each is share-locked: a drawer
 * retired at that moment (the back office locks it for update, then checks its tills) either waits
 * for this opening and then sees its till (409 `till_not_closed`), or has retired it first and is not
 * read here; without the lock, a till could open on a drawer retired between this read and the insert.
 */
async function locationDrawers(db: TenantDb, locationId: string, opts: { lock?: boolean } = {}): Promise<DrawerRow[]> {
  let q = db
    .selectFrom('drawers')
    .select(['id', 'name', 'kind', 'fiscal_identity'])
    .where('location_id', '=', locationId)
    .where('retired_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id');
  if (opts.lock) q = q.forShare();
  return q.execute();
}

/** Unclosed tills that hold a receptacle this opening may need: the location's, and the member's own wallet anywhere. */
async function liveTills(db: TenantDb, actor: RegisterActor) {
  return db
    .selectFrom('pos_tills')
    .select(['id', 'mode', 'drawer_id', 'staff_id', 'device_id', 'state'])
    .where('state', '<>', 'closed')
    .where((eb) => eb.or([eb('location_id', '=', actor.locationId), eb.and([eb('mode', '=', 'staff_wallet'), eb('staff_id', '=', actor.staffId)])]))
    .execute();
}

async function conflict(db: TenantDb, actor: RegisterActor, message: string) {
  const drawers = await locationDrawers(db, actor.locationId);
  const existing = (await liveTills(db, actor)).flatMap((t): ExistingTill[] => {
    const receptacle = receptacleOf(t.mode, t);
    return receptacle ? [{ id: t.id, receptacle, state: t.state }] : [];
  });
  const free = new Set(freeDrawers(drawers.map((d) => d.id), existing));
  return errors.conflict(message, { reason: 'till_conflict', extra: { candidates: drawers.filter((d) => free.has(d.id)).map(candidate) } });
}

/** Picks the receptacle and the frozen drawer identity, or throws the 409 / 422 of the rules. */
async function chooseDrawer(tx: TenantTx, actor: RegisterActor, input: OpenTillInput, staff: { id: string; name: string }): Promise<{ drawer_id: string | null; drawer: TillDrawer }> {
  const existing = (await liveTills(tx, actor)).flatMap((t): (ExistingTill & { device_id: string; mode: TillMode })[] => {
    const receptacle = receptacleOf(t.mode, t);
    return receptacle ? [{ id: t.id, receptacle, state: t.state, device_id: t.device_id, mode: t.mode }] : [];
  });
  if (input.mode === 'staff_wallet') {
    if (input.drawer_id !== null) throw errors.field('drawer_id', 'A staff_wallet till keeps the cash in your own wallet: leave drawer_id out.');
    if (receptacleConflict({ kind: 'staff', id: actor.staffId }, existing)) throw await conflict(tx, actor, TILL_CONFLICT_MESSAGES.wallet);
    return { drawer_id: null, drawer: walletDrawer(staff) };
  }
  // One unclosed register_drawer till per register: settle and refunds book cash to "this register's till".
  if (existing.some((t) => t.mode === 'register_drawer' && t.device_id === actor.deviceId)) throw await conflict(tx, actor, TILL_CONFLICT_MESSAGES.register);
  const drawers = await locationDrawers(tx, actor.locationId, { lock: true });
  if (input.drawer_id !== null) {
    const d = drawers.find((x) => x.id === input.drawer_id);
    if (!d) throw errors.field('drawer_id', 'The selected drawer_id is not a drawer of this location.');
    if (receptacleConflict({ kind: 'drawer', id: d.id }, existing)) throw await conflict(tx, actor, TILL_CONFLICT_MESSAGES.drawer);
    return { drawer_id: d.id, drawer: drawerIdentity(d) };
  }
  if (drawers.length === 0) throw errors.businessRule(NO_DRAWER_MESSAGE, { reason: 'no_drawer' });
  const free = freeDrawers(drawers.map((d) => d.id), existing);
  const only = free.length === 1 ? drawers.find((d) => d.id === free[0]) : undefined;
  if (!only) throw await conflict(tx, actor, free.length === 0 ? TILL_CONFLICT_MESSAGES.none_free : TILL_CONFLICT_MESSAGES.pick);
  return { drawer_id: only.id, drawer: drawerIdentity(only) };
}

/**
 * `POST /pos/tills` (permission `open_till`; spec 2 till rule 2, section 3).
 *
 * - `register_drawer`: the till holds a drawer of the location. With `drawer_id` that drawer; without
 *   it, the only free drawer (several free, or none free: 409 `till_conflict` with the free drawers
 *   as `candidates`; a location without drawers: 422 `no_drawer`). A register holds at most one
 *   unclosed register_drawer till (409 `till_conflict`).
 * - `staff_wallet`: the till is the member's own wallet (virtual drawer `wallet:<staff id>`);
 *   `drawer_id` must be absent or null.
 * - A receptacle (drawer or member) is held by a till until it is closed: an open or ended-not-closed
 *   till on it is a 409 `till_conflict` with `candidates: [{id, name, kind}]` (the free drawers).
 *   The partial unique indexes decide under concurrency (same 409).
 * - The till books on the location's business day (created if first); after that day's Z close:
 *   409 `business_day_closed`.
 * Returns the bare till; the drawer identity is frozen on it.
 */
export async function openTill(db: TenantDb, actor: RegisterActor, authorizer: StaffAuthorizer, body: unknown, now: Date): Promise<TillResource> {
  const input = readOpenTillBody(body);
  await authorizer.require('open_till');
  const staff = await db.selectFrom('staff_credentials').select(['id', 'name']).where('id', '=', actor.staffId).executeTakeFirstOrThrow();
  try {
    const row = await withWriteRetry(() =>
      db.transaction().execute(async (tx) => {
        // Serialises the openings of one register (its one register_drawer till).
        await tx.selectFrom('devices').select('id').where('id', '=', actor.deviceId).forNoKeyUpdate().execute();
        const day = await requireOpenBusinessDay(tx, actor.locationId, now);
        const { drawer_id, drawer } = await chooseDrawer(tx, actor, input, staff);
        return tx
          .insertInto('pos_tills')
          .values({
            id: Bun.randomUUIDv7(),
            location_id: actor.locationId,
            mode: input.mode,
            drawer_id,
            staff_id: actor.staffId,
            device_id: actor.deviceId,
            state: 'open',
            opening_float: input.opening_float,
            drawer_snapshot: JSON.stringify(drawer),
            opened_at: now,
            business_day_id: day.id,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      }),
    );
    return toTillResource(row, staff.name);
  } catch (e) {
    if (isUniqueViolation(e, 'pos_tills_live_drawer')) throw await conflict(db, actor, TILL_CONFLICT_MESSAGES.drawer);
    if (isUniqueViolation(e, 'pos_tills_live_wallet')) throw await conflict(db, actor, TILL_CONFLICT_MESSAGES.wallet);
    throw e;
  }
}
