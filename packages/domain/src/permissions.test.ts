import { describe, expect, test } from 'bun:test';
import { BACKOFFICE_PERMISSIONS, BACKOFFICE_PERMISSION_GROUPS, groupedBackofficePermissions, permissionLabel } from './permissions.ts';

describe('back-office permission groups', () => {
  test('every catalogue slug belongs to exactly one group', () => {
    const grouped = BACKOFFICE_PERMISSION_GROUPS.flatMap((g) => g.permissions);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual([...BACKOFFICE_PERMISSIONS].sort());
    expect(groupedBackofficePermissions().some((g) => g.group === 'Other')).toBe(false);
  });

  test('labels are readable', () => {
    expect(permissionLabel('VIEW_ACTIVITY_LOGS')).toBe('View activity logs');
    expect(permissionLabel('MANAGE_POS_STAFF')).toBe('Manage POS staff');
    expect(permissionLabel('edit-locations')).toBe('Edit locations');
  });

  test('grouped list answers value and label', () => {
    const roles = groupedBackofficePermissions().find((g) => g.group === 'Roles');
    expect(roles?.permissions[0]).toEqual({ value: 'VIEW_ROLES', label: 'View roles' });
  });
});
