/**
 * The permission catalogue of specs 1 and 2 as data. Back-office slugs are checked per route against
 * the user's roles, scoped to granted locations; register permissions (CONTRACTS 2) are held by staff.
 */
export const BACKOFFICE_PERMISSIONS = [
  // activity logs
  'VIEW_ACTIVITY_LOGS',
  // billing profiles
  'CREATE_BILLING_PROFILES', 'DELETE_BILLING_PROFILES', 'EDIT_BILLING_PROFILES', 'VIEW_BILLING_PROFILES',
  // branding profile
  'CREATE_BRANDING_PROFILE', 'DELETE_BRANDING_PROFILE', 'EDIT_BRANDING_PROFILE', 'VIEW_BRANDING_PROFILE',
  // categories
  'CREATE_CATEGORIES', 'DELETE_CATEGORIES', 'EDIT_CATEGORIES', 'VIEW_CATEGORIES',
  // content
  'CREATE_CONTENT', 'DELETE_CONTENT', 'VIEW_CONTENT',
  // customers
  'CREATE_CUSTOMERS', 'DELETE_CUSTOMERS', 'EDIT_CUSTOMERS', 'EXPORT_CUSTOMERS', 'VIEW_CUSTOMERS',
  // custom tax rates
  'CREATE_CUSTOM_TAX_RATES', 'DELETE_CUSTOM_TAX_RATES', 'EDIT_CUSTOM_TAX_RATES',
  // devices
  'CREATE_DEVICES', 'DELETE_DEVICES', 'EDIT_DEVICES', 'VIEW_DEVICES',
  // device profile
  'CREATE_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'VIEW_DEVICE_PROFILE',
  // integration settings
  'MANAGE_INTEGRATION_SETTINGS',
  // inventory
  'VIEW_INVENTORY',
  // in house channel
  'EDIT_IN_HOUSE_CHANNEL',
  // items
  'CREATE_ITEMS', 'DELETE_ITEMS', 'EDIT_ITEMS', 'EXPORT_ITEMS', 'VIEW_ITEMS',
  // kitchen reports
  'VIEW_KITCHEN_REPORTS',
  // language
  'CREATE_LANGUAGE', 'DELETE_LANGUAGE', 'EDIT_LANGUAGE', 'VIEW_LANGUAGE',
  // loyalty
  'DELETE_LOYALTY', 'EDIT_LOYALTY', 'VIEW_LOYALTY',
  // menus
  'CREATE_MENUS', 'DELETE_MENUS', 'EDIT_MENUS', 'VIEW_MENUS',
  // modifier groups
  'CREATE_MODIFIER_GROUPS', 'DELETE_MODIFIER_GROUPS', 'EDIT_MODIFIER_GROUPS', 'VIEW_MODIFIER_GROUPS',
  // offers
  'CREATE_OFFERS', 'DELETE_OFFERS', 'EDIT_OFFERS', 'VIEW_OFFERS',
  // online ordering
  'EDIT_ONLINE_ORDERING', 'VIEW_ONLINE_ORDERING',
  // payment profiles
  'CREATE_PAYMENT_PROFILES', 'DELETE_PAYMENT_PROFILES', 'EDIT_PAYMENT_PROFILES', 'VIEW_PAYMENT_PROFILES',
  // pos configuration
  'MANAGE_POS_CONFIGURATION', 'VIEW_POS_CONFIGURATION',
  // pos layouts
  'MANAGE_POS_LAYOUTS',
  // pos reports
  'VIEW_POS_REPORTS',
  // pos staff
  'MANAGE_POS_STAFF',
  // receipts
  'EDIT_RECEIPTS',
  // roles
  'ASSIGN_ROLES', 'CREATE_ROLES', 'DELETE_ROLES', 'EDIT_ROLES', 'VIEW_ROLES',
  // sales channel
  'VIEW_SALES_CHANNEL',
  // sales reports
  'VIEW_SALES_REPORTS',
  // tax rates
  'VIEW_TAX_RATES',
  // transactions
  'VIEW_TRANSACTIONS',
  // transaction reports
  'EXPORT_TRANSACTION_REPORTS',
  // translation
  'EDIT_TRANSLATION', 'VIEW_TRANSLATION',
  // users
  'CREATE_USERS', 'DELETE_USERS', 'EDIT_USERS', 'VIEW_USERS',
  // user location access
  'EDIT_USER_LOCATION_ACCESS',
  // variant groups
  'CREATE_VARIANT_GROUPS', 'DELETE_VARIANT_GROUPS', 'EDIT_VARIANT_GROUPS',
  // location settings (spec 2: `pos_tenders` is written with permission `edit-locations`)
  'edit-locations',
] as const;
export type BackofficePermission = (typeof BACKOFFICE_PERMISSIONS)[number];

const BACKOFFICE_SET: ReadonlySet<string> = new Set(BACKOFFICE_PERMISSIONS);
export const isBackofficePermission = (p: string): p is BackofficePermission => BACKOFFICE_SET.has(p);

/**
 * Display grouping of the back-office catalogue (`GET /back-office/settings/team/permission-list`),
 * in display order. Every slug of `BACKOFFICE_PERMISSIONS` belongs to exactly one group (a unit test
 * holds this); a slug added without a group is shown under `OTHER_PERMISSION_GROUP`.
 */
export const BACKOFFICE_PERMISSION_GROUPS: readonly { readonly group: string; readonly permissions: readonly BackofficePermission[] }[] = [
  { group: 'Activity logs', permissions: ['VIEW_ACTIVITY_LOGS'] },
  { group: 'Billing profiles', permissions: ['VIEW_BILLING_PROFILES', 'CREATE_BILLING_PROFILES', 'EDIT_BILLING_PROFILES', 'DELETE_BILLING_PROFILES'] },
  { group: 'Branding profile', permissions: ['VIEW_BRANDING_PROFILE', 'CREATE_BRANDING_PROFILE', 'EDIT_BRANDING_PROFILE', 'DELETE_BRANDING_PROFILE'] },
  { group: 'Categories', permissions: ['VIEW_CATEGORIES', 'CREATE_CATEGORIES', 'EDIT_CATEGORIES', 'DELETE_CATEGORIES'] },
  { group: 'Content', permissions: ['VIEW_CONTENT', 'CREATE_CONTENT', 'DELETE_CONTENT'] },
  { group: 'Customers', permissions: ['VIEW_CUSTOMERS', 'CREATE_CUSTOMERS', 'EDIT_CUSTOMERS', 'DELETE_CUSTOMERS', 'EXPORT_CUSTOMERS'] },
  { group: 'Custom tax rates', permissions: ['CREATE_CUSTOM_TAX_RATES', 'EDIT_CUSTOM_TAX_RATES', 'DELETE_CUSTOM_TAX_RATES'] },
  { group: 'Devices', permissions: ['VIEW_DEVICES', 'CREATE_DEVICES', 'EDIT_DEVICES', 'DELETE_DEVICES'] },
  { group: 'Device profile', permissions: ['VIEW_DEVICE_PROFILE', 'CREATE_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE'] },
  { group: 'Integration settings', permissions: ['MANAGE_INTEGRATION_SETTINGS'] },
  { group: 'Inventory', permissions: ['VIEW_INVENTORY'] },
  { group: 'In-house channel', permissions: ['EDIT_IN_HOUSE_CHANNEL'] },
  { group: 'Items', permissions: ['VIEW_ITEMS', 'CREATE_ITEMS', 'EDIT_ITEMS', 'DELETE_ITEMS', 'EXPORT_ITEMS'] },
  { group: 'Kitchen reports', permissions: ['VIEW_KITCHEN_REPORTS'] },
  { group: 'Language', permissions: ['VIEW_LANGUAGE', 'CREATE_LANGUAGE', 'EDIT_LANGUAGE', 'DELETE_LANGUAGE'] },
  { group: 'Locations', permissions: ['edit-locations'] },
  { group: 'Loyalty', permissions: ['VIEW_LOYALTY', 'EDIT_LOYALTY', 'DELETE_LOYALTY'] },
  { group: 'Menus', permissions: ['VIEW_MENUS', 'CREATE_MENUS', 'EDIT_MENUS', 'DELETE_MENUS'] },
  { group: 'Modifier groups', permissions: ['VIEW_MODIFIER_GROUPS', 'CREATE_MODIFIER_GROUPS', 'EDIT_MODIFIER_GROUPS', 'DELETE_MODIFIER_GROUPS'] },
  { group: 'Offers', permissions: ['VIEW_OFFERS', 'CREATE_OFFERS', 'EDIT_OFFERS', 'DELETE_OFFERS'] },
  { group: 'Online ordering', permissions: ['VIEW_ONLINE_ORDERING', 'EDIT_ONLINE_ORDERING'] },
  { group: 'Payment profiles', permissions: ['VIEW_PAYMENT_PROFILES', 'CREATE_PAYMENT_PROFILES', 'EDIT_PAYMENT_PROFILES', 'DELETE_PAYMENT_PROFILES'] },
  { group: 'POS configuration', permissions: ['VIEW_POS_CONFIGURATION', 'MANAGE_POS_CONFIGURATION'] },
  { group: 'POS layouts', permissions: ['MANAGE_POS_LAYOUTS'] },
  { group: 'POS reports', permissions: ['VIEW_POS_REPORTS'] },
  { group: 'POS staff', permissions: ['MANAGE_POS_STAFF'] },
  { group: 'Receipts', permissions: ['EDIT_RECEIPTS'] },
  { group: 'Roles', permissions: ['VIEW_ROLES', 'CREATE_ROLES', 'EDIT_ROLES', 'DELETE_ROLES', 'ASSIGN_ROLES'] },
  { group: 'Sales channel', permissions: ['VIEW_SALES_CHANNEL'] },
  { group: 'Sales reports', permissions: ['VIEW_SALES_REPORTS'] },
  { group: 'Tax rates', permissions: ['VIEW_TAX_RATES'] },
  { group: 'Transactions', permissions: ['VIEW_TRANSACTIONS'] },
  { group: 'Transaction reports', permissions: ['EXPORT_TRANSACTION_REPORTS'] },
  { group: 'Translation', permissions: ['VIEW_TRANSLATION', 'EDIT_TRANSLATION'] },
  { group: 'Users', permissions: ['VIEW_USERS', 'CREATE_USERS', 'EDIT_USERS', 'DELETE_USERS'] },
  { group: 'User location access', permissions: ['EDIT_USER_LOCATION_ACCESS'] },
  { group: 'Variant groups', permissions: ['CREATE_VARIANT_GROUPS', 'EDIT_VARIANT_GROUPS', 'DELETE_VARIANT_GROUPS'] },
];

export const OTHER_PERMISSION_GROUP = 'Other';

/** Human label of a slug: `VIEW_ACTIVITY_LOGS` -> `View activity logs`, `edit-locations` -> `Edit locations`. */
export function permissionLabel(slug: string): string {
  const words = slug.toLowerCase().split(/[_-]+/).filter(Boolean).map((w) => (w === 'pos' ? 'POS' : w));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The catalogue grouped for display: `[{group, permissions:[{value, label}]}]`, ungrouped slugs last under `Other`. */
export function groupedBackofficePermissions(): { group: string; permissions: { value: string; label: string }[] }[] {
  const seen = new Set<string>();
  const out = BACKOFFICE_PERMISSION_GROUPS.map((g) => ({
    group: g.group,
    permissions: g.permissions.map((p) => {
      seen.add(p);
      return { value: p, label: permissionLabel(p) };
    }),
  }));
  const rest = BACKOFFICE_PERMISSIONS.filter((p) => !seen.has(p));
  if (rest.length) out.push({ group: OTHER_PERMISSION_GROUP, permissions: rest.map((p) => ({ value: p, label: permissionLabel(p) })) });
  return out;
}

/** CONTRACTS 2: what each register permission guards. */
export const REGISTER_PERMISSIONS = [
  'take_orders',
  'settle',
  'apply_discount',
  'remove_fired_line',
  'void_order',
  'refund',
  'open_till',
  'count_till',
  'close_till',
  'till_paid_out',
  'no_sale',
  'close_business_day',
  'manage_printers',
  'approve_as_manager',
] as const;
export type RegisterPermission = (typeof REGISTER_PERMISSIONS)[number];

const REGISTER_SET: ReadonlySet<string> = new Set(REGISTER_PERMISSIONS);
export const isRegisterPermission = (p: string): p is RegisterPermission => REGISTER_SET.has(p);

/** CONTRACTS 1: the demo cashier's permissions. */
export const CASHIER_PERMISSIONS: readonly RegisterPermission[] = ['take_orders', 'settle', 'open_till', 'count_till'];

/** A member holding `approve_as_manager` approves every register permission without escalation. */
export function staffMayAct(held: readonly string[], needed: RegisterPermission): boolean {
  return held.includes(needed) || held.includes('approve_as_manager');
}
