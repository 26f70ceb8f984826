import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T = unknown> = ColumnType<T, string | T, string | T>;

/** Tables of the central schema (`public`): what crosses tenants. */
export interface CentralTables {
  merchants: {
    id: string;
    slug: string;
    name: string;
    tenant_database: string;
    pos_provider: string | null;
    is_test: Generated<boolean>;
    reseller_id: string | null;
    started_at: NullableTimestamp;
    created_at: Timestamp;
  };
  users: {
    id: string;
    email: string;
    password_hash: string;
    name: string;
    phone: string | null;
    business_info: Json<Record<string, unknown>>;
    email_verified_at: NullableTimestamp;
    is_global_admin: Generated<boolean>;
    /** Resellers own the merchants whose reseller_id points at them (admin-vendor-override). */
    reseller_id: string | null;
    active_merchant_id: string | null;
    last_active_at: NullableTimestamp;
    created_at: Timestamp;
  };
  memberships: {
    user_id: string;
    merchant_id: string;
    is_owner: Generated<boolean>;
    /** The merchant's name for the member; null shows the account's own name. */
    display_name: ColumnType<string | null, string | null | undefined, string | null>;
    created_at: Timestamp;
  };
  /** Device registry: activation is unauthenticated, so the code must find its merchant centrally. */
  device_registry: {
    id: string;
    merchant_id: string;
    type: string;
    activation_code: string | null;
    activation_code_used_at: NullableTimestamp;
    token_version: Generated<number>;
    created_at: Timestamp;
  };
  pos_providers: {
    key: string;
    name: string;
    active: boolean;
    test_only: boolean;
  };
  outbox: {
    id: Generated<string>;
    queue: string;
    job: string;
    payload: Json<Record<string, unknown>>;
    created_at: Timestamp;
    relayed_at: NullableTimestamp;
    attempts: Generated<number>;
  };
  notifications: {
    id: string;
    user_id: string;
    merchant_id: string;
    title: string;
    body: string;
    read_at: NullableTimestamp;
    created_at: Timestamp;
  };
  /** Team invitations, one per (merchant, user); only the SHA-256 of the emailed token is stored. */
  invitations: {
    id: string;
    merchant_id: string;
    user_id: string;
    invited_by: string | null;
    token_hash: string;
    expires_at: ColumnType<Date, Date | string, Date | string>;
    accepted_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  heartbeats: {
    service: string;
    beat_at: Timestamp;
    info: Json<Record<string, unknown>>;
  };
  /** Which tenant migration set each schema was last brought to (migrateAll's one-query skip). */
  tenant_schema_versions: {
    schema_name: string;
    fingerprint: string;
    latest: string;
    migrated_at: Timestamp;
  };
  /** Central webhook log (spec 3 section 6, issue 13); card-b rows upsert on `webhook_id`. */
  webhook_logs: {
    id: string;
    type: string;
    provider: string;
    webhook_id: string;
    status: string;
    merchant_id: string | null;
    event_type: string | null;
    event_id: string | null;
    fields: Json<Record<string, unknown>>;
    payload: Json<unknown> | null;
    raw_body: string;
    occurrences: Generated<number>;
    error: string | null;
    expires_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** One claim per provider event acted on (`claimed`, `processed`, `failed`). */
  webhook_claims: {
    provider: string;
    event_id: string;
    status: string;
    error: string | null;
    claimed_at: Timestamp;
    updated_at: Timestamp;
  };
  /** Commission per provider payment and its adjustments (reversals, refunds). */
  commission_ledger: {
    id: string;
    merchant_id: string;
    source: string;
    source_ref: string;
    is_adjustment: Generated<boolean>;
    adjusts_id: string | null;
    commission_amount: number;
    fee_amount: number | null;
    reason: string | null;
    status: Generated<string>;
    created_at: Timestamp;
  };
}
