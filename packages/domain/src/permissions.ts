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
