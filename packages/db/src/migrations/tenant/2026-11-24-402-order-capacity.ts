import { type Kysely } from 'kysely';

/**
 * Order capacity timing (spec 3 "Transitions": set on the transition to Complete): the time slot a
 * completed order occupies in the location's kitchen, so available timeslots can count the orders
 * already taken per slot. Counted through the index, not a shared counter row, so captures of one
 * slot never wait on each other.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('capacity_slot_at', 'timestamptz').execute();
  await db.schema.createIndex('transactions_capacity_slot').on('transactions').columns(['location_id', 'capacity_slot_at']).where('capacity_slot_at', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_capacity_slot').ifExists().execute();
  await db.schema.alterTable('transactions').dropColumn('capacity_slot_at').execute();
}
