import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T = unknown> = ColumnType<T, string | T, string | T>;

/** Tables of one merchant's schema. Reached only through a tenant-bound Kysely (see tenancy.ts). */
export interface TenantTables {
  locations: {
    id: string;
    name: string;
    timezone: string;
    address: string | null;
    country: string;
    status: Generated<string>;
    vat_no: string | null;
    est_no: string | null;
    pos_tenders: Json<unknown>;
    created_at: Timestamp;
  };
  devices: {
    id: string;
    location_id: string;
    type: 'pos' | 'kiosk' | 'kds' | 'printer';
    name: string;
    device_profile_id: string | null;
    subscription_active_until: NullableTimestamp;
    activated_at: NullableTimestamp;
    last_seen_at: NullableTimestamp;
    network_info: Json<Record<string, unknown>>;
    deleted_at: NullableTimestamp;
    created_at: Timestamp;
  };
  /** Shared settings for devices of one type (migration 2026-11-21-002-devices). */
  device_profiles: {
    id: string;
    name: string;
    type: 'pos' | 'kiosk' | 'kds';
    settings: Json<Record<string, unknown>>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  roles: {
    id: string;
    name: string;
    is_owner: Generated<boolean>;
    permissions: ColumnType<string[], string[], string[]>;
    created_at: Timestamp;
  };
  user_roles: { user_id: string; role_id: string };
  user_locations: { user_id: string; location_id: string };
  /** Per-member settings of this merchant; `all_locations`: access to every location, including future ones. */
  member_settings: {
    user_id: string;
    all_locations: Generated<boolean>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  staff_credentials: {
    id: string;
    name: string;
    role: string;
    /** argon2id hash of the PIN (verification). */
    pin_hash: string;
    /** keyed HMAC of the PIN: lookup at PIN login and uniqueness within the merchant. */
    pin_fingerprint: string;
    permissions: ColumnType<string[], string[], string[]>;
    user_id: string | null;
    deleted_at: NullableTimestamp;
    created_at: Timestamp;
  };
  tax_rates: { id: string; name: string; rate: number; country: string };
  items: {
    id: string;
    name: string;
    unit_price: number;
    vat_rate: number;
    category: string | null;
    created_at: Timestamp;
  };
  menus: {
    id: string;
    location_id: string;
    name: string;
    status: 'draft' | 'published' | 'archived';
    created_at: Timestamp;
  };
  display_groups: { id: string; menu_id: string; name: string; position: number };
  display_group_items: { display_group_id: string; item_id: string; position: number };
  drawers: {
    id: string;
    location_id: string;
    name: string;
    kind: 'physical' | 'virtual';
    /** Frozen at creation: `{drawerId, drawerName}` as signed in fiscal events. */
    fiscal_identity: Json<{ drawerId: string; drawerName: string } | null>;
    retired_at: NullableTimestamp;
    created_at: Timestamp;
  };
  fdm_devices: {
    id: string;
    location_id: string;
    fdm_id: string;
    regime: string;
    status: 'active' | 'retired';
    mode: 'software' | 'remote';
    created_at: Timestamp;
    retired_at: NullableTimestamp;
  };
  activity_logs: {
    id: string;
    user_id: string | null;
    action: string;
    subject: string;
    subject_id: string | null;
    properties: Json<Record<string, unknown>>;
    created_at: Timestamp;
  };
  pos_staff_sessions: {
    id: string;
    staff_id: string;
    device_id: string;
    location_id: string;
    token_hash: string;
    created_at: Timestamp;
    expires_at: Timestamp;
    ended_at: NullableTimestamp;
  };
  pos_orders: {
    id: string;
    location_id: string;
    device_id: string;
    staff_id: string | null;
    version: number;
    state: 'OPEN' | 'SETTLING' | 'SETTLED' | 'VOIDED';
    fired: Generated<boolean>;
    order_profile: Json<Record<string, unknown>>;
    table_number: string | null;
    lines: Json<unknown[]>;
    totals: Json<Record<string, unknown>>;
    tender: Json<Record<string, unknown> | null>;
    fiscal: Json<Record<string, unknown> | null>;
    transaction_id: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
    fired_at: NullableTimestamp;
    settled_at: NullableTimestamp;
  };
  pos_transactions: {
    id: string;
    order_id: string;
    location_id: string;
    device_id: string;
    staff_id: string | null;
    total: number;
    tender: Json<Record<string, unknown>>;
    payment_snapshot: Json<unknown>;
    captured_by_platform: Generated<boolean>;
    fiscal: Json<Record<string, unknown> | null>;
    business_date: ColumnType<string, string, string>;
    till_id: string | null;
    created_at: Timestamp;
  };
  fiscal_counters: { fdm_id: string; label: string; value: Generated<number> };
  fiscal_journal: {
    id: string;
    fdm_id: string;
    location_id: string;
    seq: number;
    event_kind: string;
    payload: string;
    sign_result: string | null;
    status: 'pending' | 'signed' | 'failed';
    prev_hash: string;
    hash: string;
    result_hash: string | null;
    /** HMAC seals under the environment's seal key (@pos/fiscal journal); null on rows from before sealing. */
    seal: string | null;
    result_seal: string | null;
    subject_type: string | null;
    subject_id: string | null;
    created_at: Timestamp;
    completed_at: NullableTimestamp;
  };
  pos_registers: {
    id: string;
    location_id: string;
    name: string;
    device_id: string | null;
    drawer_id: string | null;
    terminal: Json<Record<string, unknown> | null>;
    retired_at: NullableTimestamp;
    created_at: Timestamp;
  };
  pos_tills: {
    id: string;
    location_id: string;
    mode: 'register_drawer' | 'staff_wallet';
    drawer_id: string | null;
    staff_id: string;
    device_id: string;
    state: 'open' | 'ended' | 'closed';
    opening_float: number;
    drawer_snapshot: Json<Record<string, unknown>>;
    opened_at: Timestamp;
    ended_at: NullableTimestamp;
    counted: number | null;
    expected_at_count: number | null;
    variance: number | null;
    variance_level: string | null;
    counted_at: NullableTimestamp;
    counted_by: string | null;
    closed_at: NullableTimestamp;
    closed_by: string | null;
    close_approved_by: string | null;
    business_day_id: string | null;
  };
  pos_till_movements: {
    id: string;
    till_id: string;
    type: 'paid_in' | 'paid_out' | 'drawer_open_no_sale' | 'float_issue' | 'float_return';
    amount: number;
    reason: string | null;
    staff_id: string;
    approved_by: string | null;
    journal_id: string | null;
    created_at: Timestamp;
  };
  pos_refunds: {
    id: string;
    transaction_id: string;
    location_id: string;
    device_id: string;
    staff_id: string;
    approved_by: string | null;
    mode: 'full' | 'partial';
    amount: number;
    by_vat_rate: Json<unknown[]>;
    till_id: string | null;
    fiscal: Json<Record<string, unknown> | null>;
    business_date: ColumnType<string, string, string>;
    created_at: Timestamp;
  };
  pos_refund_lines: { refund_id: string; transaction_id: string; line_uuid: string; amount: number };
  pos_business_days: {
    id: string;
    location_id: string;
    business_date: ColumnType<string, string, string>;
    status: 'open' | 'closed';
    opened_at: Timestamp;
    closed_at: NullableTimestamp;
    closed_by: string | null;
    z_report_no: number | null;
    z_report: Json<Record<string, unknown> | null>;
    journal_id: string | null;
  };
}
