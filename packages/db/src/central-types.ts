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
    /** Password sign-in then needs an OTP sent by e-mail (issue 18). */
    two_factor_enabled: Generated<boolean>;
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
  /** Jobs that failed for good, kept after their bee-queue entry is purged (migration 2026-12-01-550). */
  job_failures: {
    prefix: string;
    queue: string;
    job_id: string;
    job: string;
    outbox_id: string | number | null;
    envelope: Json<unknown> | null;
    error: string;
    runs: number;
    failed_at: Timestamp;
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
    /** The reseller a reseller subscription commission row is owed to (migration 2026-12-06-101-commission-reseller); null otherwise. */
    reseller_id: string | null;
    /** A card-b terminal entry: the cents its commission was computed on, which a reversal's share is taken of; a `card_b_reversal` adjustment: the cents it reversed (migration 2026-12-06-301-commission-base-amount). Null otherwise and on older rows. */
    base_amount: number | null;
    created_at: Timestamp;
  };
  /** A merchant's account at an integration provider (issue 13 item 5; issue 17 extends it). */
  integration_connections: {
    id: string;
    provider: string;
    external_ref: string;
    external_group_ref: string | null;
    merchant_id: string;
    location_id: string | null;
    status: Generated<string>;
    webhook_key_encrypted: string | null;
    access_token_encrypted: string | null;
    refresh_token_encrypted: string | null;
    token_expires_at: NullableTimestamp;
    /** While set and in the future, one process is refreshing the token (migration 2026-11-26-401). */
    token_refresh_until: NullableTimestamp;
    scopes: string | null;
    settings: Json<Record<string, unknown>>;
    menu_sync_requested_at: NullableTimestamp;
    /** The last menu push (`sync-menu`; migration 2026-12-03-101). */
    menu_synced_at: NullableTimestamp;
    last_event_at: NullableTimestamp;
    connected_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** A store and a location claimed while one request connects them (migration 2026-11-28-501). */
  integration_connect_claims: {
    provider: string;
    external_ref: string;
    merchant_id: string;
    location_id: string;
    claimed_until: Timestamp;
    created_at: Timestamp;
  };
  /** What a verified integration webhook asked for, once per provider event (`pending` until worked). */
  integration_events: {
    id: string;
    connection_id: string;
    merchant_id: string;
    location_id: string | null;
    provider: string;
    kind: string;
    event_type: string;
    event_id: string;
    external_id: string | null;
    webhook_log_id: string | null;
    status: Generated<string>;
    created_at: Timestamp;
  };
  /** Printer tokens by hash (migration 2026-11-24-501-printer-tokens). */
  printer_tokens: { token_hash: string; merchant_id: string; tenant_database: string; printer_id: string; created_at: Timestamp };
  /** Table QR ordering: which merchant a table section (and its location) belongs to (migration 2026-11-24-950). */
  /** Fiscal data module ids, platform-wide: each enrolled by one merchant (migration 2026-11-28-701-fdm-registry). */
  fdm_registry: {
    fdm_id: string;
    merchant_id: string;
    created_at: Generated<Date>;
  };
  table_qr_directory: {
    table_section_id: string;
    merchant_id: string;
    location_id: string;
    created_at: Generated<Date>;
  };
  /** Restaurant suggestions: locations with online ordering, platform-wide (migration 2026-11-24-801-restaurant-listings). */
  restaurant_listings: {
    location_id: string;
    merchant_id: string;
    slug: string;
    name: string;
    latitude: number | null;
    longitude: number | null;
    categories: ColumnType<string[], string[] | undefined, string[]>;
    listed: Generated<boolean>;
    upvotes: Generated<number>;
    updated_at: Timestamp;
  };
  restaurant_upvotes: { location_id: string; customer_id: string; created_at: Timestamp };
  /** Daily auto-sync schedules per connection (migration 2026-11-24-990-auto-sync; spec 1 rules 1-7). */
  integration_auto_syncs: {
    connection_id: string;
    merchant_id: string;
    provider: string;
    sync_time: string | null;
    sync_timezone: string | null;
    enabled: Generated<boolean>;
    next_run_at: NullableTimestamp;
    last_run_at: NullableTimestamp;
    updated_at: Timestamp;
    /** The last provider sync: `ok`, `error` or `not_configured` (migration 2026-11-25-801-auto-sync-outcome). */
    last_status: Generated<string | null>;
    last_error: Generated<string | null>;
    last_counts: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
    last_finished_at: NullableTimestamp;
    /** The scheduled instant the last finished run stood for. */
    last_scheduled_for: NullableTimestamp;
    /** Runs of the current scheduled instant (a failed one is retried by the queue with backoff). */
    attempts: Generated<number>;
  };
  /** Issue 18: single-use e-mail tokens (`verify_email`, `reset_password`), SHA-256 only. */
  account_tokens: {
    id: string;
    user_id: string;
    purpose: string;
    token_hash: string;
    expires_at: ColumnType<Date, Date | string, Date | string>;
    used_at: NullableTimestamp;
    created_at: Timestamp;
  };
  /** Issue 18: a password sign-in waiting for its second factor (pending-login token SHA-256, OTP argon2id). */
  otp_challenges: {
    id: string;
    user_id: string;
    merchant_id: string;
    login_token_hash: string;
    /** SHA-256 of the password hash the sign-in verified: a changed password ends the pending sign-in. */
    credential_stamp: string | null;
    code_hash: string | null;
    code_expires_at: NullableTimestamp;
    attempts: Generated<number>;
    expires_at: ColumnType<Date, Date | string, Date | string>;
    completed_at: NullableTimestamp;
    created_at: Timestamp;
  };
  /** Issue 18: WebAuthn credentials of back-office users. */
  passkeys: {
    id: string;
    user_id: string;
    credential_id: string;
    public_key: string;
    counter: ColumnType<string, number | string | undefined, number | string>;
    transports: Json<string[]>;
    name: string;
    last_used_at: NullableTimestamp;
    created_at: Timestamp;
  };
  /** Issue 18: identity-provider subjects linked to users (by verified e-mail at first sign-in). */
  user_identities: {
    issuer: string;
    subject: string;
    user_id: string;
    email: string;
    created_at: Timestamp;
  };
  /** Issue 17 item 4: register-c location mappings, one per (merchant, location). */
  register_c_mappings: {
    merchant_id: string;
    location_id: string;
    connection_id: string;
    register_c_location_id: string;
    status: Generated<string>;
    /** Migration 2026-11-26-201: order routing, menu source, dismissed suggestion, last sync. */
    order_settings: ColumnType<Record<string, unknown>, string | undefined, string>;
    menu_source: Generated<boolean>;
    suggestion_dismissed_digest: string | null;
    last_synced_at: NullableTimestamp;
    last_sync_counts: Json<Record<string, number>> | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** register-b location mappings (migration 2026-11-26-101-register-b-mappings). */
  register_b_mappings: {
    merchant_id: string;
    location_id: string;
    connection_id: string;
    branch_id: string;
    branch_name: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** Issue 18: one guided-setup video per setup task (global-admin managed). */
  guided_setup_videos: {
    task_id: string;
    title: string;
    video_url: string;
    updated_by: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
}

/** `integration_events.external_id` holds at most this many characters (a check constraint): writers cut their text to it. */
export const EXTERNAL_ID_MAX = 200;
