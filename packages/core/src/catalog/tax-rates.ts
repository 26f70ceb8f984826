import { defaultTaxRates } from '@pos/domain/catalog/tax-defaults';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { isCountryCode } from '../options/countries.ts';
import { catalogTx, findOr404, iso, newId, stateConflict, uniqueOr, type CatalogScope } from './catalog-scope.ts';

/**
 * Tax rates (spec 1 "Content, inventories, tax rates"). The defaults are data (`@pos/domain`
 * tax-defaults, by the countries of the merchant's locations); rows of `tax_rates` are the merchant's
 * stored rates: seeded defaults (`is_custom` false, read-only here) and custom rates.
 */
export interface TaxRateView {
  id: string;
  name: string;
  rate: number;
  country: string;
  is_custom: boolean;
  created_at: string;
}

const view = (r: { id: string; name: string; rate: number; country: string; is_custom: boolean; created_at: Date }): TaxRateView => ({
  id: r.id,
  name: r.name,
  rate: r.rate,
  country: r.country,
  is_custom: r.is_custom,
  created_at: iso(r.created_at)!,
});

/** `GET /tax-rates/datatable`: the stored rates; search on name or country; sort name, rate, country, created_at; filter `is_custom`. */
export function listTaxRates(tdb: TenantDb, q: DatatableQuery & { sort?: string; is_custom?: boolean }): Promise<Datatable<TaxRateView>> {
  let base = tdb.selectFrom('tax_rates');
  if (q.is_custom !== undefined) base = base.where('is_custom', '=', q.is_custom);
  return runDatatable(base, q, {
    searchColumns: ['name', 'country'],
    sortable: ['name', 'rate', 'country', 'created_at'],
    defaultSort: { column: 'rate', direction: 'desc' },
    select: (qb) => qb.selectAll(),
    map: view,
  });
}

export interface TaxRateOption {
  value: number;
  label: string;
  /** Stored rate id, or null for a default that is data only. */
  id: string | null;
  is_custom: boolean;
}

/** `GET /tax-rate-options`: the rates an item may carry: stored rates, then the defaults of the merchant's countries; one option per rate, highest first. */
export async function taxRateOptions(tdb: TenantDb): Promise<TaxRateOption[]> {
  const [stored, locations] = await Promise.all([
    tdb.selectFrom('tax_rates').select(['id', 'name', 'rate', 'is_custom']).orderBy('is_custom').orderBy('created_at').execute(),
    tdb.selectFrom('locations').select('country').execute(),
  ]);
  const out = new Map<number, TaxRateOption>();
  for (const r of stored) if (!out.has(r.rate)) out.set(r.rate, { value: r.rate, label: r.name, id: r.id, is_custom: r.is_custom });
  for (const d of defaultTaxRates(locations.map((l) => l.country))) if (!out.has(d.rate)) out.set(d.rate, { value: d.rate, label: d.name, id: null, is_custom: false });
  return [...out.values()].sort((a, b) => b.value - a.value);
}

/**
 * 422 on `field` unless `rate` is one of the merchant's tax-rate options (a stored rate or a default of
 * the merchant's countries). The stored rows of that rate are held FOR KEY SHARE until the caller
 * commits, and a rate's removal or change locks its row first: an item written meanwhile either makes
 * the removal a 409 `tax_rate_in_use`, or waits for it and finds the rate gone (this 422).
 */
export async function requireTaxRate(tdb: TenantDb, rate: number, field = 'vat_rate'): Promise<void> {
  const stored = await tdb.selectFrom('tax_rates').select('id').where('rate', '=', rate).forKeyShare().execute();
  if (stored.length > 0) return;
  const locations = await tdb.selectFrom('locations').select('country').execute();
  if (!defaultTaxRates(locations.map((l) => l.country)).some((d) => d.rate === rate)) throw errors.field(field, `The selected ${field.replace(/_/g, ' ')} is not one of the merchant's tax rates.`);
}

export interface TaxRateInput {
  name: string;
  rate: number;
  country?: string;
}

/** The schema's words: a well-formed pair of letters that is no country (`ZZ`) is the same 422, as for a location. */
const UNKNOWN_COUNTRY = 'The country must be a two-letter country code.';
function requireCountry(country: string | undefined): void {
  if (country !== undefined && !isCountryCode(country)) throw errors.field('country', UNKNOWN_COUNTRY);
}

const RATE_TAKEN = () => errors.field('rate', 'A custom tax rate with this rate already exists.');
/** Partial unique index on `rate` of the custom rows: a rate taken by a concurrent request is the same 422. */
const CUSTOM_RATE_INDEX = 'tax_rates_custom_rate_unique';

async function uniqueRate(tdb: TenantDb, rate: number, exceptId?: string): Promise<void> {
  let q = tdb.selectFrom('tax_rates').select('id').where('rate', '=', rate).where('is_custom', '=', true);
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw RATE_TAKEN();
}

/** The row locked for its change or removal (see `requireTaxRate`). */
const findLocked = (tdb: TenantDb, id: string) => findOr404('tax rate', id, (x) => tdb.selectFrom('tax_rates').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());

function requireCustom(r: { is_custom: boolean }): void {
  if (!r.is_custom) throw stateConflict('tax_rate_not_custom', 'Only custom tax rates can be changed or deleted.');
}

export async function createTaxRate(scope: CatalogScope, input: TaxRateInput): Promise<TaxRateView> {
  requireCountry(input.country);
  return catalogTx(scope, async (tx) => {
    await uniqueRate(tx, input.rate);
    const country = input.country?.toUpperCase() ?? (await tx.selectFrom('locations').select('country').orderBy('created_at').executeTakeFirst())?.country ?? 'BE';
    const row = await uniqueOr(
      tx.insertInto('tax_rates').values({ id: newId(), name: input.name.trim(), rate: input.rate, country, is_custom: true }).returningAll().executeTakeFirstOrThrow(),
      CUSTOM_RATE_INDEX,
      RATE_TAKEN,
    );
    return view(row);
  });
}

export async function updateTaxRate(scope: CatalogScope, id: string, input: Partial<TaxRateInput>): Promise<TaxRateView> {
  return catalogTx(scope, async (tx) => {
    const current = await findLocked(tx, id);
    requireCustom(current);
    requireCountry(input.country);
    if (input.rate !== undefined && input.rate !== current.rate) {
      await uniqueRate(tx, input.rate, current.id);
      await requireUnused(tx, current.rate, current.id);
    }
    const changes = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.rate !== undefined ? { rate: input.rate } : {}),
      ...(input.country !== undefined ? { country: input.country.toUpperCase() } : {}),
    };
    // An empty body changes nothing (the row has no updated_at to touch): answer the rate as it is,
    // rather than an UPDATE with an empty SET list, which PostgreSQL refuses (it was a 500).
    if (Object.keys(changes).length === 0) return view(current);
    const row = await uniqueOr(
      tx
        .updateTable('tax_rates')
        .set(changes)
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow(),
      CUSTOM_RATE_INDEX,
      RATE_TAKEN,
    );
    return view(row);
  });
}

export async function deleteTaxRate(scope: CatalogScope, id: string): Promise<void> {
  await catalogTx(scope, async (tx) => {
    const current = await findLocked(tx, id);
    requireCustom(current);
    await requireUnused(tx, current.rate, current.id);
    await tx.deleteFrom('tax_rates').where('id', '=', current.id).execute();
  });
}

/** True when `rate` stays among the options once the stored row `exceptId` is gone (another row or a default covers it). */
async function stillOffered(tdb: TenantDb, rate: number, exceptId: string): Promise<boolean> {
  const other = await tdb.selectFrom('tax_rates').select('id').where('rate', '=', rate).where('id', '<>', exceptId).executeTakeFirst();
  if (other) return true;
  const locations = await tdb.selectFrom('locations').select('country').execute();
  return defaultTaxRates(locations.map((l) => l.country)).some((d) => d.rate === rate);
}

async function requireUnused(tdb: TenantDb, rate: number, exceptId: string): Promise<void> {
  const used = await tdb.selectFrom('items').select('id').where('vat_rate', '=', rate).executeTakeFirst();
  if (used && !(await stillOffered(tdb, rate, exceptId))) throw stateConflict('tax_rate_in_use', 'Items use this tax rate; move them to another rate first.');
}
