import type { ColumnType, Generated } from 'kysely';
import type { OrderState } from '@pos/domain/orders/order-state';

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
    /** `{ platform_a?: { active, location_id }, test_mode?, card_b? }` (migration 2026-11-23-012-transactions); the in-person provider comes from the payment profile (`payment_profile_id`). */
    payment_settings: ColumnType<Record<string, unknown>, string | Record<string, unknown> | undefined, string | Record<string, unknown>>;
    /** Contact fields (migration 2026-11-24-970-settings). */
    phone: Generated<string | null>;
    email: Generated<string | null>;
    city: Generated<string | null>;
    postal_code: Generated<string | null>;
    updated_at: Generated<Date>;
    /** The payment profile the location uses; null: the merchant's default (migration 2026-11-28-020-location-payment-profile). */
    payment_profile_id: Generated<string | null>;
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
    /** Payment terminals this device pays on (migration 2026-11-23-012-transactions). */
    card_b_terminal_id: Generated<string | null>;
    card_a_reader_id: Generated<string | null>;
    platform_a_device_id: Generated<string | null>;
    /** The kitchen station a KDS device shows (migration 2026-11-23-030-kitchen). */
    station_id: Generated<string | null>;
    /** The KDS device's own settings over its KDS profile, and its push token (migration 2026-11-24-101-kds-live). */
    kds_settings: ColumnType<Record<string, unknown>, string | undefined, string>;
    kds_push_token: Generated<string | null>;
    kds_push_platform: Generated<string | null>;
    /** The kiosk's terminal payment switch and its last platform-a pairing code (migration 2026-11-27-150-device-routes). */
    payment_enabled: Generated<boolean>;
    platform_a_device_code_id: Generated<string | null>;
    /** A subscribe request's reservation of the device and the platform-a location of its pairing code (migration 2026-11-28-070-device-subscription-claims). */
    subscription_claim: Generated<string | null>;
    subscription_claim_until: NullableTimestamp;
    platform_a_device_code_location: Generated<string | null>;
  };
  /** Kitchen stations of a location and the categories they serve (migration 2026-11-23-030-kitchen). */
  kitchen_stations: {
    id: string;
    location_id: string;
    name: string;
    category_ids: ColumnType<string[], string[] | undefined, string[]>;
    is_fallback: Generated<boolean>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** A station's ticket for one order (migration 2026-11-23-031-kitchen-tickets). */
  kitchen_tickets: {
    id: string;
    location_id: string;
    station_id: string;
    /** `transaction` (kiosk, online) or `pos_order` (a fired register order). */
    source: 'transaction' | 'pos_order';
    source_id: string;
    fire_no: Generated<number>;
    order_no: string;
    status: Generated<'Queued' | 'In Progress' | 'Ready' | 'Complete'>;
    held: Generated<boolean>;
    prioritized: Generated<boolean>;
    queued_at: Timestamp;
    started_at: NullableTimestamp;
    ready_at: NullableTimestamp;
    completed_at: NullableTimestamp;
    recalled_at: NullableTimestamp;
    updated_at: Timestamp;
    /** Customer signals (migration 2026-11-24-101-kds-live). */
    customer_arrived_at: NullableTimestamp;
    estimated_arrival_at: NullableTimestamp;
    /** When a scheduled order is due (its `scheduled_for`); null for an order for now (migration 2026-12-05-100-kitchen-ticket-due). */
    due_at: NullableTimestamp;
  };
  kitchen_ticket_lines: {
    ticket_id: string;
    position: number;
    item_id: string;
    line_ref: Generated<string | null>;
    category_id: string | null;
    name: string;
    qty: number;
    modifiers: Json<unknown[]>;
    status: Generated<'Queued' | 'In Progress' | 'Ready'>;
    /** Per modifier index, its mark (migration 2026-11-24-101-kds-live). */
    modifier_statuses: ColumnType<string[], string | undefined, string>;
  };
  /** Per-location gap-free counter of kitchen events (migration 2026-11-24-101-kds-live). */
  kitchen_event_cursors: { location_id: string; last_seq: ColumnType<string, number | string | undefined, number | string> };
  /** What kitchen screens show, numbered per location (migration 2026-11-24-101-kds-live). */
  kitchen_events: {
    location_id: string;
    seq: ColumnType<string, number | string, number | string>;
    station_id: string;
    ticket_id: string;
    action: string;
    payload: ColumnType<Record<string, unknown>, string, string>;
    created_at: Generated<Date>;
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
  tax_rates: { id: string; name: string; rate: number; country: string; is_custom: Generated<boolean>; created_at: Timestamp };
  /** Catalog (migration 2026-11-23-010-catalog). */
  categories: { id: string; name: string; description: string | null; position: Generated<number>; created_at: Timestamp; updated_at: Timestamp };
  items: {
    id: string;
    name: string;
    unit_price: number;
    vat_rate: number;
    /** The category's name, kept beside `category_id` for the register's order lines. */
    category: string | null;
    description: Generated<string | null>;
    category_id: Generated<string | null>;
    sku: Generated<string | null>;
    allergens: ColumnType<string[], string[] | undefined, string[]>;
    dietary: ColumnType<string[], string[] | undefined, string[]>;
    channels: ColumnType<string[], string[] | undefined, string[]>;
    /** null: every location. */
    location_ids: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
    visible: Generated<boolean>;
    allow_negative_stock: Generated<boolean>;
    /** Migration 2026-11-23-002: the item's image (a content item). */
    image_content_id: Generated<string | null>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** Uploaded files; the bytes live in the object store under `storage_key`. */
  contents: { id: string; name: string; alt_text: string | null; content_type: string; size_bytes: number; storage_key: string; created_at: Timestamp; updated_at: Timestamp };
  inventory_levels: { item_id: string; location_id: string; quantity: number; updated_at: Timestamp };
  /** Stock held by an open customer checkout (migration 2026-11-30-101-stock-reservations). */
  stock_reservations: { transaction_id: string; item_id: string; location_id: string; qty: number; expires_at: Timestamp; created_at: Generated<Date> };
  /** Migration 2026-11-26-202: our item standing for a register-c sku at one of our locations. */
  register_c_item_links: { location_id: string; sku: string; item_id: string; created_at: Timestamp; updated_at: Timestamp };
  inventory_history: {
    id: string;
    item_id: string;
    location_id: string;
    type: 'restock' | 'sale' | 'waste' | 'adjustment' | 'count';
    quantity_change: number;
    quantity_after: number;
    note: string | null;
    user_id: string | null;
    created_at: Timestamp;
  };
  modifier_groups: { id: string; name: string; min_select: number; max_select: number; position: Generated<number>; created_at: Timestamp; updated_at: Timestamp };
  modifiers: { id: string; modifier_group_id: string; name: string; price: number; position: number };
  item_modifier_groups: { item_id: string; modifier_group_id: string; position: number };
  variant_groups: { id: string; item_id: string; name: string; created_at: Timestamp; updated_at: Timestamp };
  variants: { id: string; variant_group_id: string; name: string; unit_price: number; position: number };
  menus: {
    id: string;
    location_id: string;
    name: string;
    status: 'draft' | 'published' | 'archived';
    channels: ColumnType<string[], string[] | undefined, string[]>;
    /** Pending display-group structure (see core/catalog/menus), null when none. */
    draft: Json<unknown | null>;
    published_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  display_groups: { id: string; menu_id: string; name: string; position: number; parent_id: Generated<string | null> };
  display_group_items: { display_group_id: string; item_id: string; position: number };
  /** What channels read: one row per location, swapped in the publishing transaction. */
  published_catalogs: {
    location_id: string;
    menu_id: string | null;
    version: number;
    payload: Json<unknown | null>;
    published_at: Timestamp;
  };
  offers: {
    id: string;
    name: string;
    description: string | null;
    status: Generated<'inactive' | 'active' | 'archived'>;
    rule: Json<Record<string, unknown>>;
    item_ids: ColumnType<string[], string[] | undefined, string[]>;
    category_ids: ColumnType<string[], string[] | undefined, string[]>;
    min_basket: Generated<number>;
    channels: ColumnType<string[], string[] | undefined, string[]>;
    location_ids: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
    schedule: Json<Record<string, unknown> | null>;
    position: Generated<number>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
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
  /** Kiosk and online payments (spec 3 "Transaction"); money in integer cents. */
  transactions: {
    id: string;
    location_id: string;
    device_id: string | null;
    channel: 'kiosk' | 'online_ordering' | 'table_qr' | 'delivery';
    order_no: number;
    status: 'Pending' | 'Awaiting Payment' | 'Awaiting Capture' | 'Awaiting Invoice' | 'Complete' | 'Unpaid' | 'Cancelled';
    order_status: string | null;
    /** The payment provider; a marketplace order is paid by the marketplace (`delivery-a`, `delivery-b`). */
    payment_provider: 'card-a' | 'card-b' | 'platform-a' | 'delivery-a' | 'delivery-b';
    payment_snapshot: Json<Record<string, unknown>>;
    idempotency_key: string;
    all_idempotency_keys: ColumnType<string[], string[], string[]>;
    invalid_idempotency_keys: ColumnType<string[], string[] | undefined, string[]>;
    receipt_no: number | null;
    subtotal: number;
    discount: number;
    vat: number;
    fees: Generated<number>;
    tip_amount: Generated<number>;
    total: number;
    by_vat_rate: Json<unknown[]>;
    offers: Json<unknown[]>;
    menu_version: number | null;
    is_free: Generated<boolean>;
    auto_success: Generated<boolean>;
    is_test: Generated<boolean>;
    customer_id: string | null;
    loyalty_token: string | null;
    cart_session_id: string | null;
    completed_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
    /** The customer's name the order is called by (kiosk customer name; migration 2026-11-24-201-customers-loyalty). */
    customer_name: Generated<string | null>;
    /** The storefront order's contact (payment body `customer.email`, `customer.phone`); null otherwise. */
    customer_email: Generated<string | null>;
    customer_phone: Generated<string | null>;
    /** A storefront payment request's `Idempotency-Key` and the hash of its body (migration 2026-12-01-520-online-request-key); null otherwise. */
    request_key: Generated<string | null>;
    request_hash: Generated<string | null>;
    /** `For Here`, `Takeaway`, `Pickup`, `Delivery`, ... as the channel sent it. */
    dining_option: Generated<string | null>;
    /** Where a Delivery order goes (`DeliveryAddress` of the domain; migration 2026-11-28-090-delivery-address); null otherwise. */
    delivery_address: ColumnType<unknown | null, string | null | undefined, string | null>;
    /** A later pickup or delivery time; null = as soon as possible. */
    scheduled_for: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    /** Order capacity timing: the slot a completed order occupies (migration 2026-11-24-402-order-capacity). */
    capacity_slot_at: Generated<Date | null>;
    /** The table session a paid table QR order is bound to (migration 2026-11-24-950-table-qr). */
    table_session_id: Generated<string | null>;
    /** Inbound marketplace orders (migration 2026-11-25-802-marketplace-orders): the marketplace, its order id (unique per marketplace), its latest order status. */
    external_provider: Generated<string | null>;
    external_order_id: Generated<string | null>;
    external_status: Generated<string | null>;
  };
  /** Steps of the post-capture sequence a transaction went through, once each, in order. */
  /** A transaction's sync state with its location's register: what the last `order.dispatch` ended with. */
  transaction_register_sync: { transaction_id: string; status: string; detail: string | null; updated_at: Generated<Timestamp> };
  transaction_steps: { seq: Generated<string>; transaction_id: string; step: string; outcome: string; detail: string | null; at: Timestamp };
  /** Kitchen item documents written by `PaymentCaptured`. */
  kitchen_items: {
    transaction_id: string;
    position: number;
    location_id: string;
    order_no: number;
    item_id: string;
    name: string;
    qty: number;
    unit_price: number;
    total: number;
    modifiers: Json<unknown[]>;
    status: Generated<string>;
    created_at: Timestamp;
  };
  daily_stats: { location_id: string; date: ColumnType<string, string, string>; transactions: number; total: ColumnType<string, number | string, number | string> };
  transaction_lines: {
    transaction_id: string;
    position: number;
    item_id: string;
    category_id: string | null;
    name: string;
    qty: number;
    unit_price: number;
    vat_rate: ColumnType<string, number | string, number | string>;
    gross: number;
    discount: number;
    total: number;
    modifiers: Json<unknown[]>;
    variant: Json<unknown | null>;
  };
  transaction_counters: { location_id: string; name: 'order_no' | 'receipt_no'; value: number };
  /** The timestamp of each device's last idempotency key (a bigint, read as a string). */
  idempotency_key_clocks: { device_id: string; last_ms: string | number };
  pos_orders: {
    id: string;
    location_id: string;
    device_id: string;
    staff_id: string | null;
    version: number;
    /** The domain's order state machine (`@pos/domain/orders/order-state`), SETTLING included. */
    state: OrderState;
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
    /** The variance of the first count that needed close_till approval (it showed the expected cash); null while none did. */
    flagged_variance: number | null;
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
    /** The refunded lines' total (cents); the cash handed back is `amount - rounding`. */
    amount: number;
    /** Lines - cash handed back: the share of the sale's cash rounding this refund settles. */
    rounding: Generated<number>;
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
  /** Customers and loyalty (migration 2026-11-24-201-customers-loyalty). */
  customers: {
    id: string;
    name: string | null;
    email: string | null;
    phone: string | null;
    marketing_consent: Generated<boolean>;
    created_at: Timestamp;
    updated_at: Timestamp;
    /** `iss|sub` of the identity-provider login (migration 2026-11-24-901-customer-accounts). */
    idp_subject: Generated<string | null>;
    /** The contact was proven by a sign-in (migration 2026-11-27-111-customer-contact-verified); a change of the value drops it. */
    email_verified: Generated<boolean>;
    phone_verified: Generated<boolean>;
    /** The customer app's first sign-in (migration 2026-11-29-501-customer-signed-in); never cleared. */
    signed_in_at: NullableTimestamp;
  };
  loyalty_programs: { location_id: string; active: Generated<boolean>; points_per_euro: number; created_at: Timestamp; updated_at: Timestamp };
  loyalty_rewards: { id: string; location_id: string; name: string; points: number; discount: number; active: Generated<boolean>; created_at: Timestamp };
  loyalty_accounts: { customer_id: string; points: Generated<number>; lifetime_points: Generated<number>; updated_at: Timestamp };
  loyalty_ledger: {
    id: string;
    customer_id: string;
    kind: 'earn' | 'redeem' | 'adjust';
    points: number;
    balance_after: number;
    transaction_id: string | null;
    reward_id: string | null;
    created_at: Timestamp;
  };
  loyalty_tokens: { token_hash: string; customer_id: string; device_id: string; expires_at: Timestamp; used_at: NullableTimestamp; created_at: Timestamp };
  customer_timeline: { id: string; customer_id: string; kind: string; transaction_id: string | null; detail: Json<Record<string, unknown>>; created_at: Timestamp };
  offer_redemptions: { offer_id: string; transaction_id: string; customer_id: string | null; discount: number; created_at: Timestamp };
  gift_cards: {
    id: string;
    code_hash: string;
    last4: string;
    balance: number;
    initial_balance: number;
    customer_id: string | null;
    status: Generated<'active' | 'disabled'>;
    expires_at: NullableTimestamp;
    created_at: Timestamp;
  };
  kiosk_push_tokens: { device_id: string; platform: string; token: string; app_version: string | null; updated_at: Timestamp };
  /** Local card-a subscription records (migration 2026-11-24-401-card-a-subscriptions). */
  billing_subscriptions: {
    id: string;
    provider: Generated<string>;
    provider_subscription_id: string;
    customer_id: string;
    location_id: string;
    price_id: string | null;
    device_ids: Json<string[] | null>;
    status: string;
    current_period_end: NullableTimestamp;
    cancel_reason: string | null;
    canceled_at: NullableTimestamp;
    payment_method_id: string | null;
    mandate_id: string | null;
    recovered_by: string | null;
    /** migration 2026-11-24-931: cancellation scheduled for the period end. */
    cancel_at_period_end: Generated<boolean>;
    event_created: ColumnType<string, number | string | undefined, number | string>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** Printer profiles (migration 2026-11-24-501-printers). */
  printer_profiles: { id: string; name: string; settings: Json<Record<string, unknown>>; created_at: Timestamp; updated_at: Timestamp };
  /** LAN printers, one per MAC (migration 2026-11-24-501-printers). */
  printers: {
    id: string;
    location_id: string;
    mac: string;
    ip: string | null;
    model: string | null;
    device_name: string | null;
    serial: string | null;
    paper_width_mm: number | null;
    mac_source: Generated<string>;
    state: Generated<'unconfigured' | 'configured' | 'paired' | 'retired'>;
    name: string | null;
    role: Generated<'receipt' | 'kitchen'>;
    station_id: string | null;
    printer_profile_id: string | null;
    poll_interval_seconds: Generated<number>;
    token_issued_at: NullableTimestamp;
    last_poll_at: NullableTimestamp;
    first_reported_by: string | null;
    last_reported_at: Timestamp;
    retired_at: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  printer_pairing_sessions: {
    id: string;
    printer_id: string;
    state: 'awaiting_write' | 'awaiting_first_poll' | 'paired' | 'expired' | 'superseded';
    started_by: string;
    expires_at: Timestamp;
    written_at: NullableTimestamp;
    paired_at: NullableTimestamp;
    created_at: Timestamp;
  };
  print_jobs: {
    id: string;
    seq: Generated<string>;
    printer_id: string;
    kind: string;
    source_key: string | null;
    document: string;
    state: Generated<'queued' | 'leased' | 'printed' | 'failed' | 'cancelled'>;
    attempts: Generated<number>;
    lease_until: NullableTimestamp;
    last_code: string | null;
    created_at: Timestamp;
    printed_at: NullableTimestamp;
    finished_at: NullableTimestamp;
  };
  /** Customer accounts (migration 2026-11-24-901-customer-accounts). */
  customer_otps: { id: string; channel: 'sms' | 'email'; destination: string; code_hash: string; expires_at: Timestamp; used_at: NullableTimestamp; created_at: Timestamp };
  customer_addresses: {
    id: string;
    customer_id: string;
    label: string | null;
    line1: string;
    line2: string | null;
    postal_code: string;
    city: string;
    country: string;
    is_default: Generated<boolean>;
    created_at: Timestamp;
  };
  customer_notes: { id: string; customer_id: string; user_id: string | null; note: string; created_at: Timestamp };
  /** Table QR ordering (migration 2026-11-24-950-table-qr): numbered tables 1..tables of a location. */
  table_sections: {
    id: string;
    location_id: string;
    name: string;
    tables: number;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** A table's session; at most one `open` per (section, table). */
  table_sessions: {
    id: string;
    location_id: string;
    table_section_id: string;
    table_number: number;
    status: Generated<string>;
    opened_at: Timestamp;
    closed_at: NullableTimestamp;
  };
  /** Channel settings per location and kind (migration 2026-11-24-801-channel-settings). */
  channel_settings: {
    location_id: string;
    kind: 'online_ordering' | 'online' | 'in_house' | 'qr_ordering';
    settings: ColumnType<Record<string, unknown>, string | undefined, string>;
    snoozed_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    updated_at: Timestamp;
  };
  /** Receipt layout of a location (migration 2026-11-24-970-settings). */
  location_receipts: {
    location_id: string;
    header: Generated<string>;
    footer: Generated<string>;
    show_logo: Generated<boolean>;
    show_address: Generated<boolean>;
    show_vat_number: Generated<boolean>;
    show_order_number: Generated<boolean>;
    updated_at: Generated<Date>;
  };
  /** The merchant's languages (migration 2026-11-24-970-settings); at most one default. */
  languages: {
    id: string;
    code: string;
    name: string;
    is_default: Generated<boolean>;
    status: Generated<'published' | 'unpublished'>;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  /** One translated field of one record in one language (migration 2026-11-24-970-settings). */
  translations: {
    id: string;
    language_id: string;
    subject_type: string;
    subject_id: string;
    field: string;
    value: string;
    updated_at: Generated<Date>;
  };
  /** Branding profiles (migration 2026-11-24-971-branding-profiles); at most one default. */
  branding_profiles: {
    id: string;
    name: string;
    is_default: Generated<boolean>;
    primary_color: Generated<string>;
    accent_color: Generated<string>;
    background_color: Generated<string>;
    text_color: Generated<string>;
    heading_font: Generated<string>;
    body_font: Generated<string>;
    logo_content_id: Generated<string | null>;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  /** Billing profiles (migration 2026-11-24-930-billing-profiles). */
  billing_profiles: { id: string; name: string; card_a_customer_id: string | null; created_at: Generated<Date>; updated_at: Generated<Date> };
  /** Payment profiles (migration 2026-11-24-932-payment-profiles); at most one default. */
  payment_profiles: {
    id: string;
    name: string;
    is_default: Generated<boolean>;
    card_a_account_id: string | null;
    card_b_account_id: string | null;
    /** The card-a account's `charges_enabled`, as last read at the provider (migration 2026-11-28-020-location-payment-profile). */
    card_a_charges_enabled: Generated<boolean>;
    /** When card-b reported the card-b account connected (8193); migration 2026-12-06-101-payment-profile-card-b-status. */
    card_b_connected_at: NullableTimestamp;
    /** The card-b account's verification (KYC) as card-b last reported it (8194); null until it did. */
    card_b_verified: boolean | null;
    /** The time of the verification event applied (an older one delivered late changes nothing). */
    card_b_verification_at: NullableTimestamp;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  /** AI credits (migration 2026-11-24-940-ai-generation): one row, id 1, balance never below zero. */
  ai_credits: {
    id: number;
    balance: number;
    updated_at: Generated<Date>;
  };
  /** AI credit packages bought (hosted checkout or the saved card); `paid` once, which credits the balance. */
  ai_credit_purchases: {
    id: string;
    package_id: string;
    credits: number;
    amount: number;
    currency: string;
    method: 'checkout' | 'saved_card';
    provider_ref: string | null;
    status: 'pending' | 'paid' | 'failed';
    created_by: string | null;
    created_at: Generated<Date>;
    paid_at: Date | null;
  };
  /** register-b: the item a register-b product was synced into, the customer a relation is linked to (migration 2026-11-26-102-register-b-links). */
  register_b_items: { product_id: string; item_id: string; created_at: Timestamp; updated_at: Timestamp };
  register_b_relations: { relation_number: string; customer_id: string; created_at: Timestamp };
  /** Generated AI photos, polled by id. */
  ai_photos: {
    id: string;
    prompt: string;
    status: 'processing' | 'completed' | 'failed';
    mime_type: string | null;
    image: Buffer | null;
    created_by: string | null;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  /** Register screen layouts of a location (migration 2026-12-04-100-pos-layouts). */
  pos_layouts: { id: string; location_id: string; name: string; is_default: Generated<boolean>; columns: number; rows: number; page_names: string[]; created_at: Timestamp; updated_at: Timestamp };
  /** A layout's tiles: an item or a category (exactly one), placed on a page's grid. */
  pos_layout_tiles: { layout_id: string; page: number; position: number; row: number; column: number; width: number; height: number; item_id: string | null; category_id: string | null; label: string | null; color: string | null };
}
