import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { atTerminalProvider, requireClient } from './device-provider.ts';
import { findDevice, requireLocationAccess, type BackofficeScope } from './device-records.ts';

export const NO_READER = 'The device has no card-a terminal reader.';

export interface ReaderLabelView {
  device_id: string;
  reader_id: string;
  label: string;
}

/**
 * `PATCH /back-office/devices/{id}/reader/label`: renames the device's card-a terminal reader at card-a
 * (`POST /v1/terminal/readers/{id}` with `label`). card-a holds the label; nothing of it is stored
 * here, so a refused or failed call changes nothing of ours. EDIT_DEVICES at the device's location.
 */
export async function renameReader(scope: BackofficeScope, cardA: CardAClient | null, deviceId: string, input: { label?: string }): Promise<ReaderLabelView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'EDIT_DEVICES');
  const label = (input.label ?? '').trim();
  if (!label) throw errors.field('label', 'The label field is required and may not be greater than 100 characters.');
  if (!d.card_a_reader_id) throw errors.businessRule(NO_READER, { reason: 'terminal_not_configured' });
  const readerId = d.card_a_reader_id;
  const client = requireClient('card-a', cardA);
  const reader = await atTerminalProvider('card-a', () => client.updateReaderLabel(readerId, label));
  await logActivity(scope.tdb, { userId: scope.userId, action: 'renamed_reader', subject: 'device', subjectId: d.id, properties: { reader_id: readerId, label } });
  return { device_id: d.id, reader_id: readerId, label: reader.label ?? label };
}
