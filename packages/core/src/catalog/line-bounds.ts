import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';

/**
 * What one basket line can carry (the kiosk and storefront quote and payment bodies): modifiers chosen,
 * and variants (one per variant group). The catalog keeps every item within it, or the item could never
 * be ordered on a customer channel: its groups would ask for more choices than a line may name.
 */
export const LINE_MAX_MODIFIERS = 50;
export const LINE_MAX_VARIANT_GROUPS = 20;

export const TOO_MANY_VARIANT_GROUPS = `An item has at most ${LINE_MAX_VARIANT_GROUPS} variant groups: a basket line names one variant of each.`;
export const MINIMUM_OVER_LINE = `The modifier groups of an item may ask for at most ${LINE_MAX_MODIFIERS} choices together: a basket line carries no more.`;

/** 422 on `field` when one of `itemIds` has modifier groups whose minimums add up to more than a line carries. */
export async function requireSelectableMinimum(tx: TenantDb, itemIds: readonly string[], field: string): Promise<void> {
  if (itemIds.length === 0) return;
  const over = await tx
    .selectFrom('item_modifier_groups')
    .innerJoin('modifier_groups', 'modifier_groups.id', 'item_modifier_groups.modifier_group_id')
    .select('item_modifier_groups.item_id')
    .where('item_modifier_groups.item_id', 'in', [...itemIds])
    .groupBy('item_modifier_groups.item_id')
    .having((eb) => eb.fn.sum('modifier_groups.min_select'), '>', LINE_MAX_MODIFIERS)
    .limit(1)
    .executeTakeFirst();
  if (over) throw errors.field(field, MINIMUM_OVER_LINE);
}

/** 422 on `item_id` when the item already has as many variant groups as a line can carry. */
export async function requireVariantGroupRoom(tx: TenantDb, itemId: string): Promise<void> {
  const row = await tx.selectFrom('variant_groups').select((eb) => eb.fn.countAll<string>().as('n')).where('item_id', '=', itemId).executeTakeFirstOrThrow();
  if (Number(row.n) >= LINE_MAX_VARIANT_GROUPS) throw errors.field('item_id', TOO_MANY_VARIANT_GROUPS);
}
