/** Database layer: Kysely over pg, migrations, tenancy, write-conflict retry and the outbox. */
export * from './database.ts';
export * from './tenancy.ts';
export * from './migrator.ts';
export * from './write-retry.ts';
export * from './pg-errors.ts';
export * from './outbox.ts';
export * from './prepared.ts';
export * from './sql-arrays.ts';
export * from './cursor.ts';
export * from './embedded.ts';
export type { CentralTables } from './central-types.ts';
export { EXTERNAL_ID_MAX } from './central-types.ts';
export type { TenantTables } from './tenant-types.ts';
export * from './auto-sync-reinterpret.ts';
