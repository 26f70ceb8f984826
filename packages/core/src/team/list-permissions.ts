import { groupedBackofficePermissions } from '@pos/domain/permissions';

export interface PermissionGroup {
  group: string;
  permissions: { value: string; label: string }[];
}

/** `GET /team/permission-list`: the back-office permission catalogue, grouped for display. */
export function listPermissions(): PermissionGroup[] {
  return groupedBackofficePermissions();
}
