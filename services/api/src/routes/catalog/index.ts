import { Elysia } from 'elysia';
import * as items from '@pos/core/catalog/items';
import { exportItems } from '@pos/core/catalog/export-items';
import * as categories from '@pos/core/catalog/categories';
import * as mg from '@pos/core/catalog/modifier-groups';
import * as vg from '@pos/core/catalog/variant-groups';
import * as menus from '@pos/core/catalog/menus';
import * as tax from '@pos/core/catalog/tax-rates';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { catalogScope, doc } from './scope.ts';
import * as S from './catalog.schemas.ts';

const backoffice = (deps: ApiDeps) => secured(deps, { types: ['backoffice'], vendorOverride: true });
const ok = { status: 'success' as const };

/** Spec 1 "Items": `/back-office/items`. */
export function itemRoutes(deps: ApiDeps) {
  const tags = ['Catalog: items'];
  return new Elysia({ name: 'catalog-items', prefix: '/back-office/items' })
    .use(backoffice(deps))
    .get('/datatable', ({ tenant, query }) => items.listItems(tenant.db, query), {
      query: S.ItemDatatableQuery,
      response: { 200: S.ItemDatatable },
      transform: [permission('VIEW_ITEMS')],
      ...doc(tags, 'Items data table', 'VIEW_ITEMS', 'Query: page, per_page (max 100), search (name, sku), sort (name, unit_price, vat_rate, created_at, updated_at; `-` for descending), filters category_id, visible, channel.'),
    })
    .get(
      '/export',
      async ({ tenant, query }) => {
        const file = await exportItems(tenant.db, query, deps.clock.now());
        return new Response(file.body, { headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` } });
      },
      {
        query: S.ExportQuery,
        response: { 200: S.ExportFile },
        transform: [permission('EXPORT_ITEMS')],
        ...doc(
          tags,
          'Export items as CSV or XLSX',
          'EXPORT_ITEMS',
          '`format` csv (default, UTF-8 with a byte-order mark) or xlsx; the datatable\'s filters: search (name, sku), category_id, visible, channel. Streamed as an attachment; columns id, name, sku, category, unit_price_cents, price, vat_rate, allergens, dietary, channels (lists joined by `|`), visible, created_at. Text that a spreadsheet would run as a formula is prefixed with `\'`.',
        ),
      },
    )
    .get('/options', async ({ tenant, query }) => ({ data: await items.itemOptions(tenant.db, query) }), {
      query: S.ItemOptionsQuery,
      response: { 200: S.ItemOptions },
      ...doc(tags, 'Item select options', null, 'At most 500, by name; optional search and category_id.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await items.createItem(await catalogScope(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateItemBody,
        response: { 201: S.ItemResponse },
        transform: [permission('CREATE_ITEMS')],
        ...doc(
          tags,
          'Create an item',
          'CREATE_ITEMS',
          'Price in cents (0 or more), VAT rate one of /tax-rate-options, category of this merchant (or null), allergen and dietary slugs of the option lists, channels, locations (null: all), visibility, modifier groups in order. A field that fails is a 422 on that field and nothing is written.',
        ),
      },
    )
    .get('/:id', async ({ tenant, params }) => ({ data: await items.getItem(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.ItemResponse },
      transform: [permission('VIEW_ITEMS')],
      ...doc(tags, 'Show an item', 'VIEW_ITEMS'),
    })
    .put('/:id', async (ctx) => ({ data: await items.updateItem(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateItemBody,
      response: { 200: S.ItemResponse },
      transform: [permission('EDIT_ITEMS')],
      ...doc(tags, 'Update an item', 'EDIT_ITEMS', 'Partial. Live on the channels at once: the published catalogs showing the item are rewritten in the same transaction.'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await items.deleteItem(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      {
        params: S.IdParams,
        response: { 200: S.Success },
        transform: [permission('DELETE_ITEMS')],
        ...doc(tags, 'Delete an item', 'DELETE_ITEMS', 'Removes it from every display group; published menus showing it are rewritten.'),
      },
    );
}

/** Spec 1 "Categories": `/back-office/categories`. */
export function categoryRoutes(deps: ApiDeps) {
  const tags = ['Catalog: categories'];
  return new Elysia({ name: 'catalog-categories', prefix: '/back-office/categories' })
    .use(backoffice(deps))
    .get('/datatable', ({ tenant, query }) => categories.listCategories(tenant.db, query), {
      query: S.CategoryDatatableQuery,
      response: { 200: S.CategoryDatatable },
      transform: [permission('VIEW_CATEGORIES')],
      ...doc(tags, 'Categories data table', 'VIEW_CATEGORIES', 'search (name), sort (name, position, created_at).'),
    })
    .get('/options', async ({ tenant }) => ({ data: await categories.categoryOptions(tenant.db) }), {
      response: { 200: S.OptionList },
      ...doc(tags, 'Category select options', null),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await categories.createCategory(await catalogScope(deps, ctx), ctx.body) };
      },
      { body: S.CreateCategoryBody, response: { 201: S.CategoryResponse }, transform: [permission('CREATE_CATEGORIES')], ...doc(tags, 'Create a category', 'CREATE_CATEGORIES', 'Name unique (case-insensitive): 422 on `name`.') },
    )
    .get('/:id', async ({ tenant, params }) => ({ data: await categories.getCategory(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.CategoryResponse },
      transform: [permission('VIEW_CATEGORIES')],
      ...doc(tags, 'Show a category', 'VIEW_CATEGORIES'),
    })
    .put('/:id', async (ctx) => ({ data: await categories.updateCategory(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateCategoryBody,
      response: { 200: S.CategoryResponse },
      transform: [permission('EDIT_CATEGORIES')],
      ...doc(tags, 'Update a category', 'EDIT_CATEGORIES'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await categories.deleteCategory(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_CATEGORIES')], ...doc(tags, 'Delete a category', 'DELETE_CATEGORIES', 'Its items stay, without a category.') },
    );
}

/** Spec 1 "Modifiers" and "Modifier groups": `/back-office/modifiers`, `/back-office/modifier-groups`. */
export function modifierRoutes(deps: ApiDeps) {
  const tags = ['Catalog: modifier groups'];
  return new Elysia({ name: 'catalog-modifiers', prefix: '/back-office' })
    .use(backoffice(deps))
    .get('/modifiers', async ({ tenant }) => ({ data: await mg.listModifiers(tenant.db) }), {
      response: { 200: S.ModifierList },
      ...doc(tags, 'Every modifier with its group', null),
    })
    .get('/modifier-groups', async ({ tenant }) => ({ data: await mg.listModifierGroups(tenant.db) }), {
      response: { 200: S.ModifierGroupList },
      transform: [permission('VIEW_MODIFIER_GROUPS')],
      ...doc(tags, 'Modifier groups in order, with their modifiers', 'VIEW_MODIFIER_GROUPS'),
    })
    .post(
      '/modifier-groups',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await mg.createModifierGroup(await catalogScope(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateModifierGroupBody,
        response: { 201: S.ModifierGroupResponse },
        transform: [permission('CREATE_MODIFIER_GROUPS')],
        ...doc(tags, 'Create a modifier group', 'CREATE_MODIFIER_GROUPS', 'min_select may not exceed max_select (422 on `min_select`); modifiers in order, prices in cents.'),
      },
    )
    .get('/modifier-groups/options', async ({ tenant }) => ({ data: await mg.modifierGroupOptions(tenant.db) }), {
      response: { 200: S.OptionList },
      ...doc(tags, 'Modifier group select options', null),
    })
    .put('/modifier-groups/reorder', async (ctx) => ({ data: await mg.reorderModifierGroups(await catalogScope(deps, ctx), ctx.body.ids) }), {
      body: S.ReorderBody,
      response: { 200: S.ModifierGroupList },
      transform: [permission('EDIT_MODIFIER_GROUPS')],
      ...doc(tags, 'Reorder modifier groups', 'EDIT_MODIFIER_GROUPS', 'The listed groups first in that order, the others after them in their current order. An unknown id is a 422 on `ids.N`.'),
    })
    .get('/modifier-groups/:id', async ({ tenant, params }) => ({ data: await mg.getModifierGroup(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.ModifierGroupResponse },
      transform: [permission('VIEW_MODIFIER_GROUPS')],
      ...doc(tags, 'Show a modifier group', 'VIEW_MODIFIER_GROUPS'),
    })
    .put('/modifier-groups/:id', async (ctx) => ({ data: await mg.updateModifierGroup(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateModifierGroupBody,
      response: { 200: S.ModifierGroupResponse },
      transform: [permission('EDIT_MODIFIER_GROUPS')],
      ...doc(tags, 'Update a modifier group', 'EDIT_MODIFIER_GROUPS', 'Partial; `modifiers` replaces the list (an `id` keeps that modifier).'),
    })
    .delete(
      '/modifier-groups/:id',
      async (ctx) => {
        await mg.deleteModifierGroup(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_MODIFIER_GROUPS')], ...doc(tags, 'Delete a modifier group', 'DELETE_MODIFIER_GROUPS') },
    );
}

/** Spec 1 "Variant groups": `/back-office/variant-groups`. */
export function variantGroupRoutes(deps: ApiDeps) {
  const tags = ['Catalog: variant groups'];
  return new Elysia({ name: 'catalog-variant-groups', prefix: '/back-office/variant-groups' })
    .use(backoffice(deps))
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await vg.createVariantGroup(await catalogScope(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateVariantGroupBody,
        response: { 201: S.VariantGroupResponse },
        transform: [permission('CREATE_VARIANT_GROUPS')],
        ...doc(tags, 'Create a variant group of an item', 'CREATE_VARIANT_GROUPS', 'An item of another merchant or unknown is a 422 on `item_id`.'),
      },
    )
    .get('/:id', async ({ tenant, params }) => ({ data: await vg.getVariantGroup(tenant.db, params.id) }), {
      params: S.IdParams,
      response: { 200: S.VariantGroupResponse },
      transform: [permission('VIEW_ITEMS')],
      ...doc(tags, 'Show a variant group', 'VIEW_ITEMS'),
    })
    .put('/:id', async (ctx) => ({ data: await vg.updateVariantGroup(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateVariantGroupBody,
      response: { 200: S.VariantGroupResponse },
      transform: [permission('EDIT_VARIANT_GROUPS')],
      ...doc(tags, 'Update a variant group', 'EDIT_VARIANT_GROUPS'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await vg.deleteVariantGroup(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_VARIANT_GROUPS')], ...doc(tags, 'Delete a variant group', 'DELETE_VARIANT_GROUPS') },
    );
}

/** Spec 1 "Display groups": `/back-office/display-groups` (no permission of their own; the menu's location must be in the caller's grant). */
export function displayGroupRoutes(deps: ApiDeps) {
  const tags = ['Catalog: display groups'];
  return new Elysia({ name: 'catalog-display-groups', prefix: '/back-office/display-groups' })
    .use(backoffice(deps))
    .get('', async (ctx) => ({ data: await menus.listDisplayGroups(await catalogScope(deps, ctx), ctx.query) }), {
      query: S.DisplayGroupListQuery,
      response: { 200: S.DisplayGroupList },
      ...doc(tags, 'Display groups', null, 'Depth-first per menu; optional menu_id.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await menus.createDisplayGroup(await catalogScope(deps, ctx), ctx.body) };
      },
      {
        body: S.CreateDisplayGroupBody,
        response: { 201: S.DisplayGroupResponse },
        ...doc(tags, 'Create a display group', null, 'In a menu that is not archived (409 `menu_archived`); `parent_id` a group of the same menu (422), never closing a cycle (422 on `parent_id`).'),
      },
    )
    .get('/:id', async (ctx) => ({ data: await menus.getDisplayGroup(await catalogScope(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.DisplayGroupResponse },
      ...doc(tags, 'Show a display group', null),
    })
    .put('/:id', async (ctx) => ({ data: await menus.updateDisplayGroup(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateDisplayGroupBody,
      response: { 200: S.DisplayGroupResponse },
      ...doc(tags, 'Update a display group', null, 'Partial. Moving it under one of its own descendants is a 422 on `parent_id`.'),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await menus.deleteDisplayGroup(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, ...doc(tags, 'Delete a display group', null, 'With its nested groups; the items stay in the catalog.') },
    );
}

/** Spec 1 "Content, inventories, tax rates" (tax part): `/back-office/tax-rate-options`, `/back-office/tax-rates`. */
export function taxRateRoutes(deps: ApiDeps) {
  const tags = ['Catalog: tax rates'];
  return new Elysia({ name: 'catalog-tax-rates', prefix: '/back-office' })
    .use(backoffice(deps))
    .get('/tax-rate-options', async ({ tenant }) => ({ data: await tax.taxRateOptions(tenant.db) }), {
      response: { 200: S.TaxRateOptions },
      ...doc(tags, 'Tax rate options', null, 'Stored rates, then the default rates of the countries of the merchant\'s locations; one per rate, highest first.'),
    })
    .get('/tax-rates/datatable', ({ tenant, query }) => tax.listTaxRates(tenant.db, query), {
      query: S.TaxRateDatatableQuery,
      response: { 200: S.TaxRateDatatable },
      transform: [permission('VIEW_TAX_RATES')],
      ...doc(tags, 'Tax rates data table', 'VIEW_TAX_RATES', 'search (name, country), sort (name, rate, country, created_at), filter is_custom.'),
    })
    .post(
      '/tax-rates',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await tax.createTaxRate(await catalogScope(deps, ctx), ctx.body) };
      },
      { body: S.CreateTaxRateBody, response: { 201: S.TaxRateResponse }, transform: [permission('CREATE_CUSTOM_TAX_RATES')], ...doc(tags, 'Create a custom tax rate', 'CREATE_CUSTOM_TAX_RATES', 'One custom rate per percentage (422 on `rate`).') },
    )
    .put('/tax-rates/:id', async (ctx) => ({ data: await tax.updateTaxRate(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateTaxRateBody,
      response: { 200: S.TaxRateResponse },
      transform: [permission('EDIT_CUSTOM_TAX_RATES')],
      ...doc(tags, 'Update a custom tax rate', 'EDIT_CUSTOM_TAX_RATES', 'A default rate is 409 `tax_rate_not_custom`; changing the rate items still use, with no other source for it, is 409 `tax_rate_in_use`.'),
    })
    .delete(
      '/tax-rates/:id',
      async (ctx) => {
        await tax.deleteTaxRate(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_CUSTOM_TAX_RATES')], ...doc(tags, 'Delete a custom tax rate', 'DELETE_CUSTOM_TAX_RATES', '409 `tax_rate_not_custom` or `tax_rate_in_use` as for updates.') },
    );
}
