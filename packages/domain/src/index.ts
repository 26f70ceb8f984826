/** Pure rules: money, permissions, and (as features arrive) orders, tills, business days. */
export * from './money.ts';
export * from './permissions.ts';
