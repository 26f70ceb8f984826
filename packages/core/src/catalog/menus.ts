import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { menuTransition, wouldCreateCycle, type MenuOperation, type MenuStatus } from '@pos/domain/catalog/menu-state';
import { AppError } from '@pos/kernel';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { depthFirst, refreshMenu, writePublished } from './published/published-catalog.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Menus (spec 1 "Menus", section 3): one location each; states draft, published, archived (the rules
 * are `menuTransition` in @pos/domain). A menu's structure is its display groups (nested through
 * `parent_id`) and their ordered items. Saving display-group items changes the structure at once (and
 * the channels, when the menu is published); saving them as a draft keeps them aside until publish or
 * discard. Publishing is one transaction: it applies the draft, makes the menu the location's only
 * published menu and rewrites the location's published catalog row.
 */
export interface MenuView {
  id: string;
  name: string;
  location_id: string;
  location: { id: string; name: string };
  status: MenuStatus;
  channels: string[];
  has_draft: boolean;
  published_at: string | null;
  display_groups_count: number;
  items_count: number;
  created_at: string;
  updated_at: string;
}

export interface DisplayGroupStructure {
  id: string;
  name: string;
  position: number;
  parent_id: string | null;
  item_ids: string[];
}

export interface MenuDetail extends MenuView {
  display_groups: DisplayGroupStructure[];
}

/** Pending display-group items: group id -> ordered item ids. */
export interface MenuDraft {
  groups: Record<string, string[]>;
}

type MenuRow = { id: string; name: string; location_id: string; status: MenuStatus; channels: string[]; draft: unknown; published_at: Date | null; created_at: Date; updated_at: Date };

const MENU_COLUMNS = ['id', 'name', 'location_id', 'status', 'channels', 'draft', 'published_at', 'created_at', 'updated_at'] as const;

export const findMenu = (tdb: TenantDb, id: string) => findOr404('menu', id, (x) => tdb.selectFrom('menus').select(MENU_COLUMNS).where('id', '=', x).executeTakeFirst()) as Promise<MenuRow>;

/**
 * The menu row locked for a write: every change of a menu (its state, structure, draft, deletion) takes
 * this lock before it reads what it decides on, so two of them serialise and the later one decides on
 * what the earlier one committed (a delete after a publish is 409 `menu_published`; a publish after a
 * delete is 404, nothing written; two saves of the same groups both succeed, the later one's list kept).
 */
const lockMenu = (tx: TenantDb, id: string) => findOr404('menu', id, (x) => tx.selectFrom('menus').select(MENU_COLUMNS).where('id', '=', x).forUpdate().executeTakeFirst()) as Promise<MenuRow>;

/** Of `itemIds`, those still in the catalog, held FOR KEY SHARE so they stay until the caller commits (a draft may name items deleted since it was saved). */
async function liveItems(tx: TenantDb, itemIds: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(itemIds)];
  if (wanted.length === 0) return new Set();
  const rows = await tx.selectFrom('items').select('id').where('id', 'in', wanted).forKeyShare().execute();
  return new Set(rows.map((r) => r.id));
}

/** 403 unless the caller's grant holds the menu's location. */
export function requireMenuLocation(scope: Pick<CatalogScope, 'access'>, locationId: string): void {
  if (!scope.access.allLocations && !scope.access.locationIds.has(locationId)) throw errors.insufficientPermissions();
}

const draftOf = (raw: unknown): MenuDraft | null => {
  if (!raw || typeof raw !== 'object' || !('groups' in raw)) return null;
  return raw as MenuDraft;
};

/** Throws the domain's refusal as an AppError (409 conflict or 422 business rule, with its reason). */
function decide(menu: MenuRow, op: MenuOperation, publishableItems = 0): MenuStatus {
  const d = menuTransition({ status: menu.status, hasDraft: draftOf(menu.draft) !== null, publishableItems }, op);
  if (d.kind === 'refused') throw new AppError(d.status === 409 ? 'conflict' : 'business_rule', d.message, { reason: d.reason });
  return d.next;
}

async function structure(tdb: TenantDb, menuId: string): Promise<DisplayGroupStructure[]> {
  const groups = await tdb.selectFrom('display_groups').select(['id', 'name', 'position', 'parent_id']).where('menu_id', '=', menuId).execute();
  const links =
    groups.length === 0
      ? []
      : await tdb
          .selectFrom('display_group_items')
          .select(['display_group_id', 'item_id'])
          .where(
            'display_group_id',
            'in',
            groups.map((g) => g.id),
          )
          .orderBy('position')
          .orderBy('item_id')
          .execute();
  return depthFirst(groups).map((g) => ({ ...g, item_ids: links.filter((l) => l.display_group_id === g.id).map((l) => l.item_id) }));
}

async function menuViews(tdb: TenantDb, rows: readonly MenuRow[]): Promise<MenuView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [locations, groups, items] = await Promise.all([
    tdb.selectFrom('locations').select(['id', 'name']).execute(),
    tdb.selectFrom('display_groups').select(['menu_id']).where('menu_id', 'in', ids).execute(),
    tdb
      .selectFrom('display_group_items')
      .innerJoin('display_groups', 'display_groups.id', 'display_group_items.display_group_id')
      .select(['display_groups.menu_id', 'display_group_items.item_id'])
      .where('display_groups.menu_id', 'in', ids)
      .execute(),
  ]);
  return rows.map((m) => ({
    id: m.id,
    name: m.name,
    location_id: m.location_id,
    location: { id: m.location_id, name: locations.find((l) => l.id === m.location_id)?.name ?? '' },
    status: m.status,
    channels: [...m.channels],
    has_draft: draftOf(m.draft) !== null,
    published_at: iso(m.published_at),
    display_groups_count: groups.filter((g) => g.menu_id === m.id).length,
    items_count: new Set(items.filter((i) => i.menu_id === m.id).map((i) => i.item_id)).size,
    created_at: iso(m.created_at)!,
    updated_at: iso(m.updated_at)!,
  }));
}

export async function getMenu(scope: Pick<CatalogScope, 'tdb' | 'access'>, id: string): Promise<MenuDetail> {
  const m = await findMenu(scope.tdb, id);
  requireMenuLocation(scope, m.location_id);
  const [v] = await menuViews(scope.tdb, [m]);
  return { ...v!, display_groups: await structure(scope.tdb, m.id) };
}

/** `GET /menus`: the menus of the caller's granted locations; optional `location_id`, `status`. */
export async function listMenus(scope: Pick<CatalogScope, 'tdb' | 'access'>, q: { location_id?: string; status?: MenuStatus }): Promise<MenuView[]> {
  let qb = scope.tdb.selectFrom('menus').select(['id', 'name', 'location_id', 'status', 'channels', 'draft', 'published_at', 'created_at', 'updated_at']);
  if (q.location_id !== undefined) qb = isUuid(q.location_id) ? qb.where('location_id', '=', q.location_id) : qb.where((eb) => eb.val(false));
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  const rows = (await qb.orderBy('name').orderBy('id').execute()) as MenuRow[];
  return menuViews(
    scope.tdb,
    rows.filter((r) => scope.access.allLocations || scope.access.locationIds.has(r.location_id)),
  );
}

/** `GET /menu-options`. */
export async function menuOptions(scope: Pick<CatalogScope, 'tdb' | 'access'>): Promise<{ value: string; label: string; status: MenuStatus; location_id: string }[]> {
  const rows = await scope.tdb.selectFrom('menus').select(['id', 'name', 'status', 'location_id']).where('status', '<>', 'archived').orderBy('name').orderBy('id').execute();
  return rows.filter((r) => scope.access.allLocations || scope.access.locationIds.has(r.location_id)).map((r) => ({ value: r.id, label: r.name, status: r.status, location_id: r.location_id }));
}

export interface MenuInput {
  name: string;
  location_id: string;
  channels?: string[];
}

export async function createMenu(scope: CatalogScope, input: MenuInput): Promise<MenuDetail> {
  const id = await catalogTx(scope, async (tx) => {
    await requireIds(tx, 'locations', [input.location_id], 'location_id', 'location id', true);
    requireMenuLocation(scope, input.location_id.toLowerCase());
    if (input.channels) requireDistinct(input.channels, 'channels');
    const id = newId();
    await tx
      .insertInto('menus')
      .values({ id, name: input.name.trim(), location_id: input.location_id.toLowerCase(), status: 'draft', ...(input.channels ? { channels: input.channels } : {}), draft: null })
      .execute();
    return id;
  });
  return getMenu(scope, id);
}

/**
 * Share-locks the modifier groups of `itemIds` (in id order) before their menu is compiled: a group edit
 * in flight (`PUT /modifier-groups/{id}` locks the group, then rewrites its modifiers) commits first and
 * is read, and one starting later finds the menu compiled with the item and recompiles it. Without it a
 * compile racing the edit read the old modifiers while the edit's refresh, not yet seeing the item on a
 * published menu, skipped it: the old price stayed on the channels. Items need no more (their writes
 * take `FOR UPDATE`, which the compile's key-share or share locks wait for), nor do variant groups (their
 * writes lock the item) or categories (their renames update the items).
 */
async function shareLockModifierGroups(tx: TenantDb, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await tx
    .selectFrom('modifier_groups')
    .select('id')
    .where('id', 'in', (eb) => eb.selectFrom('item_modifier_groups').select('modifier_group_id').where('item_id', 'in', [...itemIds]))
    .orderBy('id')
    .forShare()
    .execute();
}

/** How many of `itemIds` a published menu at `locationId` shows (visible, sold there): what `compileMenu` keeps. */
async function shownAt(tx: TenantDb, itemIds: readonly string[], locationId: string): Promise<number> {
  if (itemIds.length === 0) return 0;
  const row = await tx
    .selectFrom('items')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('id', 'in', [...itemIds])
    .where('visible', '=', true)
    .where((eb) => eb.or([eb('location_ids', 'is', null), eb(eb.val(locationId), '=', eb.fn.any('location_ids'))]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The items a menu shows now (its saved structure). */
async function menuItemIds(tx: TenantDb, menuId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('display_group_items')
    .innerJoin('display_groups', 'display_groups.id', 'display_group_items.display_group_id')
    .select('display_group_items.item_id')
    .where('display_groups.menu_id', '=', menuId)
    .distinct()
    .execute();
  return rows.map((r) => r.item_id);
}

/** Runs a structure-changing write on a menu: checks the state, and recompiles the channels' catalog when the menu is published. */
async function editMenu<T>(scope: CatalogScope, menuId: string, op: MenuOperation, work: (tx: TenantDb, menu: MenuRow) => Promise<T>): Promise<T> {
  const [out, changed] = await catalogTx(scope, async (tx) => {
    const menu = await lockMenu(tx, menuId);
    requireMenuLocation(scope, menu.location_id);
    decide(menu, op);
    const out = await work(tx, menu);
    await tx.updateTable('menus').set({ updated_at: scope.now }).where('id', '=', menu.id).execute();
    if (menu.status === 'published') await shareLockModifierGroups(tx, await menuItemIds(tx, menu.id));
    return [out, await refreshMenu(tx, menu.id)] as const;
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return out;
}

export async function updateMenu(scope: CatalogScope, id: string, input: { name?: string; channels?: string[] }): Promise<MenuDetail> {
  if (input.channels) requireDistinct(input.channels, 'channels');
  await editMenu(scope, id, 'edit', async (tx, m) => {
    // An empty body changes nothing (and an UPDATE without columns is not SQL).
    const patch = { ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.channels !== undefined ? { channels: input.channels } : {}) };
    if (Object.keys(patch).length) await tx.updateTable('menus').set(patch).where('id', '=', m.id).execute();
  });
  return getMenu(scope, id);
}

export async function deleteMenu(scope: CatalogScope, id: string): Promise<void> {
  await catalogTx(scope, async (tx) => {
    const menu = await lockMenu(tx, id);
    requireMenuLocation(scope, menu.location_id);
    decide(menu, 'delete');
    await tx.deleteFrom('menus').where('id', '=', menu.id).execute();
  });
}

/** `POST /menus/duplicate/{id}`: a draft copy (`<name> (copy)`) with the same groups, items and pending draft. */
export async function duplicateMenu(scope: CatalogScope, id: string): Promise<MenuDetail> {
  const copyId = await catalogTx(scope, async (tx) => {
    const menu = await lockMenu(tx, id);
    requireMenuLocation(scope, menu.location_id);
    decide(menu, 'duplicate');
    const copyId = newId();
    const saved = await structure(tx, menu.id);
    // Items deleted meanwhile are left out of the copy (their links would not hold).
    const live = await liveItems(tx, saved.flatMap((g) => g.item_ids));
    const groups = saved.map((g) => ({ ...g, item_ids: g.item_ids.filter((x) => live.has(x)) }));
    const idMap = new Map(groups.map((g) => [g.id, newId()]));
    const draft = draftOf(menu.draft);
    const copiedDraft = draft ? { groups: Object.fromEntries(Object.entries(draft.groups).filter(([g]) => idMap.has(g)).map(([g, items]) => [idMap.get(g)!, items])) } : null;
    await tx
      .insertInto('menus')
      .values({ id: copyId, name: `${menu.name} (copy)`.slice(0, 255), location_id: menu.location_id, status: 'draft', channels: menu.channels, draft: copiedDraft ? JSON.stringify(copiedDraft) : null })
      .execute();
    for (const g of groups) {
      await tx
        .insertInto('display_groups')
        .values({ id: idMap.get(g.id)!, menu_id: copyId, name: g.name, position: g.position, parent_id: g.parent_id ? (idMap.get(g.parent_id) ?? null) : null })
        .execute();
    }
    const links = groups.flatMap((g) => g.item_ids.map((item_id, position) => ({ display_group_id: idMap.get(g.id)!, item_id, position })));
    if (links.length > 0) await tx.insertInto('display_group_items').values(links).execute();
    return copyId;
  });
  return getMenu(scope, copyId);
}

/**
 * The items of `groups` after applying a draft (group id -> item ids), restricted to groups that still
 * exist and, when `live` is given, to items still in the catalog.
 */
function applyDraft(groups: readonly DisplayGroupStructure[], draft: MenuDraft | null, live?: ReadonlySet<string>): DisplayGroupStructure[] {
  if (!draft) return [...groups];
  return groups.map((g) => (draft.groups[g.id] ? { ...g, item_ids: draft.groups[g.id]!.filter((x) => !live || live.has(x)) } : g));
}

async function replaceGroupItems(tx: TenantDb, groupId: string, itemIds: readonly string[]): Promise<void> {
  await tx.deleteFrom('display_group_items').where('display_group_id', '=', groupId).execute();
  if (itemIds.length > 0) await tx.insertInto('display_group_items').values(itemIds.map((item_id, position) => ({ display_group_id: groupId, item_id, position }))).execute();
}

export async function publishMenu(scope: CatalogScope, id: string): Promise<MenuDetail> {
  const changed = await catalogTx(scope, async (tx) => {
    const found = await findMenu(tx, id);
    requireMenuLocation(scope, found.location_id);
    // Serialise publishes and withdrawals at one location (the location row is locked), then lock the menu
    // (a delete or edit in flight commits first: 404 if it is gone).
    await tx.selectFrom('locations').select('id').where('id', '=', found.location_id).forUpdate().execute();
    const menu = await lockMenu(tx, id);
    const draft = draftOf(menu.draft);
    // Items deleted since the draft was saved are dropped from it; none left at all is `menu_empty`.
    const live = draft ? await liveItems(tx, Object.values(draft.groups).flat()) : undefined;
    const effective = applyDraft(await structure(tx, menu.id), draft, live);
    const existing = new Set(effective.flatMap((g) => g.item_ids));
    // Every item compiled is share-locked first (in id order): an item edit or delete in flight commits
    // before it is read, and one that starts later finds this menu published and recompiles it. Without
    // it a publish racing an edit of an item only this menu shows compiled the old row, and the edit's
    // refresh, not seeing the menu published yet, skipped the location.
    if (existing.size > 0) {
      await tx.selectFrom('items').select('id').where('id', 'in', [...existing].sort()).orderBy('id').forShare().execute();
      await shareLockModifierGroups(tx, [...existing]);
    }
    // What the channels would show: items hidden, or sold only at other locations, are left out when the
    // menu is compiled, so a menu of only those is `menu_empty` too (before: published, every channel of
    // the location emptied).
    decide(menu, 'publish', await shownAt(tx, [...existing], menu.location_id));
    if (draft) for (const g of effective) if (draft.groups[g.id]) await replaceGroupItems(tx, g.id, g.item_ids);
    await tx.updateTable('menus').set({ status: 'draft', updated_at: scope.now }).where('location_id', '=', menu.location_id).where('status', '=', 'published').where('id', '<>', menu.id).execute();
    await tx.updateTable('menus').set({ status: 'published', draft: null, published_at: scope.now, updated_at: scope.now }).where('id', '=', menu.id).execute();
    await writePublished(tx, menu.location_id, menu.id);
    return [menu.location_id];
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getMenu(scope, id);
}

/** `draft` and `archive`: a published menu leaves the channels (its location then has no published menu). */
async function withdraw(scope: CatalogScope, id: string, op: 'to_draft' | 'archive'): Promise<MenuDetail> {
  const changed = await catalogTx(scope, async (tx) => {
    const found = await findMenu(tx, id);
    requireMenuLocation(scope, found.location_id);
    // Same order of locks as publish: the location first, so the two serialise; then the menu again.
    await tx.selectFrom('locations').select('id').where('id', '=', found.location_id).forUpdate().execute();
    const menu = await lockMenu(tx, id);
    const next = decide(menu, op);
    await tx.updateTable('menus').set({ status: next, updated_at: scope.now }).where('id', '=', menu.id).execute();
    const published = await tx.selectFrom('published_catalogs').select('location_id').where('menu_id', '=', menu.id).forUpdate().execute();
    for (const p of published) await writePublished(tx, p.location_id, null);
    return published.map((p) => p.location_id);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getMenu(scope, id);
}

export const draftMenu = (scope: CatalogScope, id: string) => withdraw(scope, id, 'to_draft');
export const archiveMenu = (scope: CatalogScope, id: string) => withdraw(scope, id, 'archive');

export interface DisplayGroupItemsInput {
  groups: { id: string; item_ids: string[] }[];
}

export interface DisplayGroupItemsView {
  menu_id: string;
  status: MenuStatus;
  display_groups: DisplayGroupStructure[];
  /** The structure with the pending draft applied, or null without a draft. */
  draft: DisplayGroupStructure[] | null;
}

export async function getDisplayGroupItems(scope: Pick<CatalogScope, 'tdb' | 'access'>, id: string): Promise<DisplayGroupItemsView> {
  const menu = await findMenu(scope.tdb, id);
  requireMenuLocation(scope, menu.location_id);
  const groups = await structure(scope.tdb, menu.id);
  const draft = draftOf(menu.draft);
  return { menu_id: menu.id, status: menu.status, display_groups: groups, draft: draft ? applyDraft(groups, draft) : null };
}

/** Every group must be of this menu (422 `groups.N.id`) and every item the merchant's (422 `groups.N.item_ids.M`). */
async function validateGroupItems(tx: TenantDb, menuId: string, input: DisplayGroupItemsInput): Promise<void> {
  requireDistinct(
    input.groups.map((g) => g.id),
    'groups',
  );
  const own = new Set((await tx.selectFrom('display_groups').select('id').where('menu_id', '=', menuId).execute()).map((g) => g.id));
  const problems: Record<string, string[]> = {};
  input.groups.forEach((g, i) => {
    if (!own.has(g.id.toLowerCase())) problems[`groups.${i}.id`] = [`The selected groups.${i}.id is not a display group of this menu.`];
  });
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  for (const [i, g] of input.groups.entries()) {
    requireDistinct(g.item_ids, `groups.${i}.item_ids`);
    await requireIds(tx, 'items', g.item_ids, `groups.${i}.item_ids`, 'item');
  }
}

/** `POST /menus/display-group-items/{id}`: replaces the items of the listed groups now (live when the menu is published). */
export async function saveDisplayGroupItems(scope: CatalogScope, id: string, input: DisplayGroupItemsInput): Promise<DisplayGroupItemsView> {
  await editMenu(scope, id, 'edit', async (tx, menu) => {
    await validateGroupItems(tx, menu.id, input);
    for (const g of input.groups) await replaceGroupItems(tx, g.id.toLowerCase(), g.item_ids.map((x) => x.toLowerCase()));
  });
  return getDisplayGroupItems(scope, id);
}

/** `POST /menus/display-group-items/{id}/draft`: keeps the listed groups' items aside (merged into any pending draft) until publish or discard. */
export async function saveDisplayGroupItemsDraft(scope: CatalogScope, id: string, input: DisplayGroupItemsInput): Promise<DisplayGroupItemsView> {
  await catalogTx(scope, async (tx) => {
    // Locked: two draft saves at once merge into one draft (neither loses the other's groups).
    const menu = await lockMenu(tx, id);
    requireMenuLocation(scope, menu.location_id);
    decide(menu, 'edit');
    await validateGroupItems(tx, menu.id, input);
    const draft: MenuDraft = { groups: { ...(draftOf(menu.draft)?.groups ?? {}) } };
    for (const g of input.groups) draft.groups[g.id.toLowerCase()] = g.item_ids.map((x) => x.toLowerCase());
    await tx.updateTable('menus').set({ draft: JSON.stringify(draft), updated_at: scope.now }).where('id', '=', menu.id).execute();
  });
  return getDisplayGroupItems(scope, id);
}

export async function discardDisplayGroupItemsDraft(scope: CatalogScope, id: string): Promise<DisplayGroupItemsView> {
  await catalogTx(scope, async (tx) => {
    const menu = await lockMenu(tx, id);
    requireMenuLocation(scope, menu.location_id);
    decide(menu, 'discard_draft');
    await tx.updateTable('menus').set({ draft: null, updated_at: scope.now }).where('id', '=', menu.id).execute();
  });
  return getDisplayGroupItems(scope, id);
}

// ---- display groups ----------------------------------------------------------------------------

export interface DisplayGroupView {
  id: string;
  menu_id: string;
  name: string;
  position: number;
  parent_id: string | null;
  item_ids: string[];
}

const findGroup = (tdb: TenantDb, id: string) =>
  findOr404('display group', id, (x) => tdb.selectFrom('display_groups').select(['id', 'menu_id', 'name', 'position', 'parent_id']).where('id', '=', x).executeTakeFirst());

export async function getDisplayGroup(scope: Pick<CatalogScope, 'tdb' | 'access'>, id: string): Promise<DisplayGroupView> {
  const g = await findGroup(scope.tdb, id);
  const menu = await findMenu(scope.tdb, g.menu_id);
  requireMenuLocation(scope, menu.location_id);
  const items = await scope.tdb.selectFrom('display_group_items').select('item_id').where('display_group_id', '=', g.id).orderBy('position').execute();
  return { ...g, item_ids: items.map((i) => i.item_id) };
}

/** `GET /display-groups`: groups of the caller's granted locations' menus; optional `menu_id`. */
export async function listDisplayGroups(scope: Pick<CatalogScope, 'tdb' | 'access'>, q: { menu_id?: string }): Promise<DisplayGroupView[]> {
  let qb = scope.tdb.selectFrom('display_groups').innerJoin('menus', 'menus.id', 'display_groups.menu_id').select(['display_groups.id', 'display_groups.menu_id', 'display_groups.name', 'display_groups.position', 'display_groups.parent_id', 'menus.location_id']);
  if (q.menu_id !== undefined) qb = isUuid(q.menu_id) ? qb.where('display_groups.menu_id', '=', q.menu_id) : qb.where((eb) => eb.val(false));
  const rows = (await qb.execute()).filter((r) => scope.access.allLocations || scope.access.locationIds.has(r.location_id));
  const links =
    rows.length === 0
      ? []
      : await scope.tdb
          .selectFrom('display_group_items')
          .select(['display_group_id', 'item_id'])
          .where(
            'display_group_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('position')
          .execute();
  const byMenu = new Map<string, typeof rows>();
  for (const r of rows) byMenu.set(r.menu_id, [...(byMenu.get(r.menu_id) ?? []), r]);
  return [...byMenu.values()].flatMap((list) =>
    depthFirst(list).map(({ location_id: _l, ...g }) => ({ ...g, item_ids: links.filter((l) => l.display_group_id === g.id).map((l) => l.item_id) })),
  );
}

export interface DisplayGroupInput {
  menu_id: string;
  name: string;
  position?: number;
  parent_id?: string | null;
}

async function checkParent(tx: TenantDb, menuId: string, groupId: string, parentId: string | null): Promise<void> {
  if (parentId === null) return;
  const groups = await tx.selectFrom('display_groups').select(['id', 'parent_id']).where('menu_id', '=', menuId).execute();
  if (!groups.some((g) => g.id === parentId.toLowerCase())) throw errors.field('parent_id', 'The selected parent id is not a display group of this menu.');
  if (wouldCreateCycle(groupId, parentId.toLowerCase(), new Map(groups.map((g) => [g.id, g.parent_id])))) throw errors.field('parent_id', 'A display group cannot be placed inside itself or one of its own groups.');
}

export async function createDisplayGroup(scope: CatalogScope, input: DisplayGroupInput): Promise<DisplayGroupView> {
  const menuId = input.menu_id.toLowerCase();
  const exists = isUuid(menuId) ? await scope.tdb.selectFrom('menus').select('id').where('id', '=', menuId).executeTakeFirst() : undefined;
  if (!exists) throw errors.field('menu_id', 'The selected menu id is invalid.');
  const id = newId();
  await editMenu(scope, menuId, 'edit', async (tx) => {
    await checkParent(tx, menuId, id, input.parent_id ?? null);
    const last = await tx.selectFrom('display_groups').select((eb) => eb.fn.max('position').as('p')).where('menu_id', '=', menuId).executeTakeFirst();
    await tx
      .insertInto('display_groups')
      .values({ id, menu_id: menuId, name: input.name.trim(), position: input.position ?? (last?.p ?? -1) + 1, parent_id: input.parent_id?.toLowerCase() ?? null })
      .execute();
  });
  return getDisplayGroup(scope, id);
}

export async function updateDisplayGroup(scope: CatalogScope, id: string, input: { name?: string; position?: number; parent_id?: string | null }): Promise<DisplayGroupView> {
  const g = await findGroup(scope.tdb, id);
  await editMenu(scope, g.menu_id, 'edit', async (tx) => {
    if (input.parent_id !== undefined) await checkParent(tx, g.menu_id, g.id, input.parent_id);
    const patch = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.position !== undefined ? { position: input.position } : {}),
      ...(input.parent_id !== undefined ? { parent_id: input.parent_id?.toLowerCase() ?? null } : {}),
    };
    if (Object.keys(patch).length) await tx.updateTable('display_groups').set(patch).where('id', '=', g.id).execute();
  });
  return getDisplayGroup(scope, id);
}

/** Deletes the group, its nested groups and their item links (the items stay in the catalog). */
export async function deleteDisplayGroup(scope: CatalogScope, id: string): Promise<void> {
  const g = await findGroup(scope.tdb, id);
  await editMenu(scope, g.menu_id, 'edit', async (tx) => {
    await tx.deleteFrom('display_groups').where('id', '=', g.id).execute();
  });
}

/** `POST /menus/move-item-to-other-group/{id}` ({id}: the item): moves it from one group to another of the same menu, at `position` (default: last). */
export async function moveItemToOtherGroup(
  scope: CatalogScope,
  itemId: string,
  input: { from_display_group_id: string; to_display_group_id: string; position?: number },
): Promise<DisplayGroupView> {
  const item = await findOr404('item', itemId, (x) => scope.tdb.selectFrom('items').select('id').where('id', '=', x).executeTakeFirst());
  const from = isUuid(input.from_display_group_id) ? await scope.tdb.selectFrom('display_groups').select(['id', 'menu_id']).where('id', '=', input.from_display_group_id).executeTakeFirst() : undefined;
  if (!from) throw errors.field('from_display_group_id', 'The selected from display group id is invalid.');
  const to = isUuid(input.to_display_group_id) ? await scope.tdb.selectFrom('display_groups').select(['id', 'menu_id']).where('id', '=', input.to_display_group_id).executeTakeFirst() : undefined;
  if (!to) throw errors.field('to_display_group_id', 'The selected to display group id is invalid.');
  if (to.menu_id !== from.menu_id) throw errors.field('to_display_group_id', 'The target display group must be in the same menu.');
  await editMenu(scope, from.menu_id, 'edit', async (tx) => {
    // Read before the menu was locked: the target group or the item may have been deleted since.
    if (!(await tx.selectFrom('display_groups').select('id').where('id', '=', to.id).executeTakeFirst())) throw errors.field('to_display_group_id', 'The selected to display group id is invalid.');
    if (!(await liveItems(tx, [item.id])).has(item.id)) throw errors.notFound('item');
    const link = await tx.selectFrom('display_group_items').select('item_id').where('display_group_id', '=', from.id).where('item_id', '=', item.id).executeTakeFirst();
    if (!link) throw errors.field('from_display_group_id', 'The item is not in this display group.');
    if (from.id === to.id) return;
    await tx.deleteFrom('display_group_items').where('display_group_id', '=', from.id).where('item_id', '=', item.id).execute();
    const list = (await tx.selectFrom('display_group_items').select('item_id').where('display_group_id', '=', to.id).orderBy('position').execute()).map((r) => r.item_id).filter((x) => x !== item.id);
    const at = Math.min(input.position ?? list.length, list.length);
    list.splice(at, 0, item.id);
    await replaceGroupItems(tx, to.id, list);
  });
  return getDisplayGroup(scope, to.id);
}

/** `POST /menus/add-item-to-groups/{itemId}`: appends the item to each group (not already holding it); its current groups keep it. */
export async function addItemToGroups(scope: CatalogScope, itemId: string, input: { display_group_ids: string[] }): Promise<{ item_id: string; display_group_ids: string[] }> {
  const item = await findOr404('item', itemId, (x) => scope.tdb.selectFrom('items').select('id').where('id', '=', x).executeTakeFirst());
  requireDistinct(input.display_group_ids, 'display_group_ids');
  await requireIds(scope.tdb, 'display_groups', input.display_group_ids, 'display_group_ids', 'display group');
  const groups = await scope.tdb
    .selectFrom('display_groups')
    .select(['id', 'menu_id'])
    .where(
      'id',
      'in',
      input.display_group_ids.map((x) => x.toLowerCase()),
    )
    .execute();
  const changed = await catalogTx(scope, async (tx) => {
    const touched = new Set<string>();
    // The menus locked in one order (two such requests never wait on each other crosswise), then the
    // groups and the item checked again: either may have been deleted since they were read above.
    for (const menuId of [...new Set(groups.map((g) => g.menu_id))].sort()) {
      const menu = await lockMenu(tx, menuId);
      requireMenuLocation(scope, menu.location_id);
      decide(menu, 'edit');
    }
    await requireIds(tx, 'display_groups', input.display_group_ids, 'display_group_ids', 'display group');
    if (!(await liveItems(tx, [item.id])).has(item.id)) throw errors.notFound('item');
    for (const g of groups) {
      const last = await tx.selectFrom('display_group_items').select((eb) => eb.fn.max('position').as('p')).where('display_group_id', '=', g.id).executeTakeFirst();
      // A group already holding the item keeps it where it is.
      const added = await tx
        .insertInto('display_group_items')
        .values({ display_group_id: g.id, item_id: item.id, position: (last?.p ?? -1) + 1 })
        .onConflict((oc) => oc.columns(['display_group_id', 'item_id']).doNothing())
        .returning('item_id')
        .execute();
      if (added.length > 0) touched.add(g.menu_id);
    }
    const out: string[] = [];
    if (touched.size > 0) await shareLockModifierGroups(tx, [item.id]);
    for (const m of touched) out.push(...(await refreshMenu(tx, m)));
    return out;
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  const now = await scope.tdb.selectFrom('display_group_items').select('display_group_id').where('item_id', '=', item.id).orderBy('display_group_id').execute();
  return { item_id: item.id, display_group_ids: now.map((r) => r.display_group_id) };
}
