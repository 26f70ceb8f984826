import type { RegisterCCheck, RegisterCClient } from '@pos/providers/register-c/register-c-client';
import { toCents } from '@pos/providers/register-c/register-c-client';
import { registerCAccess, registerCMapping, viaRegisterC, type RegisterCConfig, type RegisterCScope } from './register-c-access.ts';

/**
 * The register-c relay reads (spec 1 "register-c", GET, no permission): each is a typed client call
 * whose answer the client validated, mapped here to our snake_case shape with money in cents. A
 * location read takes our location id, resolved through its mapping (another merchant's location 404
 * `location`, an unmapped one 404 `mapping`). One table of reads, one runner.
 */
export interface RegisterCRead<A, R> {
  readonly run: (client: RegisterCClient, registerCLocationId: string, args: A) => Promise<R>;
  /** The model a provider 404 names (an id the caller gave: menu, floorplan, table, profile). */
  readonly notFound?: string;
}

const read = <A, R>(run: (client: RegisterCClient, loc: string, args: A) => Promise<R>, notFound?: string): RegisterCRead<A, R> => ({ run, ...(notFound ? { notFound } : {}) });

export interface RegisterCCheckView {
  id: string;
  reference: string | null;
  account_profile_code: string;
  table_number: number | null;
  status: 'open' | 'closed';
  total_cents: number;
  paid_cents: number;
  lines: { sku: string; name: string; quantity: number; price_cents: number }[];
  opened_at: string;
}

export const checkView = (c: RegisterCCheck): RegisterCCheckView => ({
  id: c.id,
  reference: c.reference,
  account_profile_code: c.profileCode,
  table_number: c.tableNumber,
  status: c.status === 'OPEN' ? 'open' : 'closed',
  total_cents: toCents(c.total),
  paid_cents: toCents(c.paid),
  lines: c.lines.map((l) => ({ sku: l.sku, name: l.name, quantity: l.quantity, price_cents: toCents(l.price) })),
  opened_at: c.openedAt,
});

const lower = <T extends string>(s: T) => s.toLowerCase() as Lowercase<T>;

export const registerCReads = {
  accountProfiles: read(async (c, loc, _a: object) => (await c.accountProfiles(loc)).map((p) => ({ code: p.code, name: p.name, type: lower(p.type) }))),
  taxPreview: read(async (c, loc, a: { account_profile_code: string; amount_cents: number }) => {
    const t = await c.taxPreview(loc, a.account_profile_code, a.amount_cents);
    return { account_profile_code: t.profileCode, gross_cents: toCents(t.grossAmount), net_cents: toCents(t.netAmount), tax_cents: toCents(t.taxAmount) };
  }, 'account profile'),
  floorplans: read(async (c, loc, _a: object) => (await c.floorplans(loc)).map((f) => ({ id: f.id, name: f.name }))),
  tables: read(async (c, loc, a: { floorplan_id: string }) => (await c.tables(loc, a.floorplan_id)).map((t) => ({ number: t.number, name: t.name, seats: t.seats })), 'floorplan'),
  menus: read(async (c, loc, _a: object) => (await c.menus(loc)).map((m) => ({ id: m.id, name: m.name }))),
  menu: read(async (c, loc, a: { menu_id: string }) => {
    const m = await c.menu(loc, a.menu_id);
    return { id: m.id, name: m.name, sections: m.sections.map((s) => ({ name: s.name, items: s.items.map((i) => ({ sku: i.sku, name: i.name, price_cents: toCents(i.price) })) })) };
  }, 'menu'),
  modifiers: read(async (c, loc, _a: object) => (await c.modifiers(loc)).map((m) => ({ id: m.id, name: m.name, price_cents: toCents(m.price) }))),
  discounts: read(async (c, loc, _a: object) =>
    (await c.discounts(loc)).map((d) => (d.type === 'PERCENT' ? { id: d.id, name: d.name, type: 'percent' as const, percent: Number(d.value), amount_cents: null } : { id: d.id, name: d.name, type: 'amount' as const, percent: null, amount_cents: toCents(d.value) })),
  ),
  availability: read(async (c, loc, _a: object) => (await c.availability(loc)).map((i) => ({ sku: i.sku, available: i.available }))),
  checks: read(async (c, loc, a: { status?: 'open' | 'closed' | undefined }) => (await c.checks(loc, a.status === 'open' ? 'OPEN' : a.status === 'closed' ? 'CLOSED' : null)).map(checkView)),
  tableChecks: read(async (c, loc, a: { table_number: number }) => (await c.tableChecks(loc, a.table_number)).map(checkView), 'table'),
  items: read(async (c, loc, _a: object) => (await c.items(loc)).map((i) => ({ sku: i.sku, name: i.name, price_cents: toCents(i.price), accounting_group_id: i.accountingGroupId, tax_rate_id: i.taxRateId }))),
  richItems: read(async (c, loc, _a: object) =>
    (await c.richItems(loc)).map((i) => ({ sku: i.sku, name: i.name, price_cents: toCents(i.price), description: i.description, image_url: i.imageUrl, allergen_codes: i.allergenCodes })),
  ),
  allergens: read(async (c, loc, _a: object) => (await c.allergens(loc)).map((a) => ({ code: a.code, name: a.name }))),
  taxRates: read(async (c, loc, _a: object) => (await c.taxRates(loc)).map((t) => ({ id: t.id, name: t.name, rate_percent: Number(t.rate) }))),
  paymentMethods: read(async (c, loc, _a: object) => (await c.paymentMethods(loc)).map((p) => ({ id: p.id, code: p.code, name: p.name }))),
  accountingGroups: read(async (c, loc, _a: object) => (await c.accountingGroups(loc)).map((g) => ({ id: g.id, name: g.name }))),
  daily: read(async (c, loc, a: { date: string }) => {
    const d = await c.daily(loc, a.date);
    return { date: d.date, sales_cents: toCents(d.salesTotal), check_count: d.checkCount, payments: d.payments.map((p) => ({ payment_method_id: p.paymentMethodId, total_cents: toCents(p.total) })) };
  }),
} as const;

/** Runs one location read for our location `locationId`. */
export async function runRegisterCRead<A, R>(scope: RegisterCScope, config: RegisterCConfig, r: RegisterCRead<A, R>, locationId: string, args: A): Promise<R> {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  return viaRegisterC(() => r.run(access.client, mapping.registerCLocationId, args), r.notFound);
}

/** `GET /financial/businesses`: the account's businesses with their locations (no location needed). */
export async function registerCBusinesses(scope: RegisterCScope, config: RegisterCConfig) {
  const access = await registerCAccess(scope, config);
  const list = await viaRegisterC(() => access.client.businesses());
  return list.map((b) => ({ id: b.id, name: b.name, currency: b.currencyCode, locations: b.locations.map((l) => ({ id: l.id, name: l.name, timezone: l.timezone })) }));
}
