import type { PlatformAClient, PlatformADeviceCode } from '@pos/providers/platform-a/platform-a-client';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { readPaymentSettings } from '../payments/kiosk-device.ts';
import { atTerminalProvider, requireClient } from './device-provider.ts';
import { findDevice, requireLocationAccess, type BackofficeScope } from './device-records.ts';
import { lockTerminal, requireTerminalFreeOfRegisters } from './terminal-bindings.ts';

export const KIOSK_ONLY = 'A platform-a terminal pairs with a kiosk only.';
export const PLATFORM_A_NOT_CONNECTED = 'platform-a is not connected for this location.';

export interface DeviceCodeView {
  device_id: string;
  code_id: string;
  /** What staff type on the terminal; null once paired or expired. */
  code: string | null;
  status: 'UNPAIRED' | 'PAIRED' | 'EXPIRED';
  pair_by: string;
  /** The paired terminal (`devices.platform_a_device_id`), once `PAIRED`. */
  platform_a_device_id: string | null;
}

const view = (deviceId: string, c: PlatformADeviceCode, paired: string | null): DeviceCodeView => ({
  device_id: deviceId,
  code_id: c.id,
  code: c.status === 'UNPAIRED' ? c.code : null,
  status: c.status,
  pair_by: c.pair_by,
  platform_a_device_id: paired,
});

/**
 * `POST /back-office/devices/{id}/platform-a-device-code`: the pairing code of a platform-a terminal for
 * this kiosk (docs/decisions.md "Device routes"). The code last made is kept on the device
 * (`platform_a_device_code_id`) and asked about first: still `UNPAIRED`, the same code is answered;
 * `PAIRED`, its `device_id` becomes the kiosk's terminal (`platform_a_device_id`) and the code is
 * forgotten; `EXPIRED` (or unknown to platform-a), or made at another platform-a location than the
 * kiosk's location has now (`platform_a_device_code_location`), a new code is made. Every write is compare-and-set on
 * the stored code, so two requests at once never leave a code the device does not know about as its own.
 */
export async function platformADeviceCode(scope: BackofficeScope, platformA: PlatformAClient | null, deviceId: string): Promise<DeviceCodeView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id);
  if (d.type !== 'kiosk') throw errors.businessRule(KIOSK_ONLY, { reason: 'not_a_kiosk' });
  const loc = await scope.tdb.selectFrom('locations').select('payment_settings').where('id', '=', d.location_id).executeTakeFirstOrThrow();
  const paLocation = readPaymentSettings(loc.payment_settings).platform_a_location_id;
  if (!paLocation) throw errors.businessRule(PLATFORM_A_NOT_CONNECTED, { reason: 'platform_a_not_connected' });
  const client = requireClient('platform-a', platformA);

  const stored = d.platform_a_device_code_id;
  // A code made at another platform-a location (the kiosk moved, or its location's platform-a location
  // changed) pairs a terminal there: never answered or bound again, a new code is made here.
  const storedHere = stored !== null && (d.platform_a_device_code_location === null || d.platform_a_device_code_location === paLocation);
  if (stored && storedHere) {
    const current = await atTerminalProvider('platform-a', async () => {
      try {
        return await client.getDeviceCode(stored);
      } catch (e) {
        // A code platform-a no longer knows is as good as expired: a new one is made.
        if (e instanceof ProviderError && e.kind === 'http' && e.status === 404) return null;
        throw e;
      }
    });
    const here = current !== null && current.location_id === paLocation;
    if (here && current.status === 'UNPAIRED') return view(d.id, current, d.platform_a_device_id);
    if (here && current.status === 'PAIRED' && current.device_id) {
      const pairedId = current.device_id;
      const done = await scope.tdb.transaction().execute(async (tx) => {
        // One terminal, one till point (terminal-bindings.ts): a terminal a live register is paired with
        // is refused here too, under the lock the other binding paths take.
        await lockTerminal(tx, 'platform-a', pairedId);
        await requireTerminalFreeOfRegisters(tx, 'platform-a', pairedId);
        const bound = await tx
          .updateTable('devices')
          .set({ platform_a_device_id: pairedId, platform_a_device_code_id: null, platform_a_device_code_location: null })
          .where('id', '=', d.id)
          .where('deleted_at', 'is', null)
          .where('platform_a_device_code_id', '=', stored)
          .executeTakeFirst();
        // One terminal takes one kiosk's payments: paired again elsewhere, it leaves the kiosk it served
        // (a lookup by the terminal would otherwise find two kiosks).
        if (Number(bound.numUpdatedRows) > 0) await tx.updateTable('devices').set({ platform_a_device_id: null }).where('platform_a_device_id', '=', pairedId).where('id', '<>', d.id).execute();
        return bound;
      });
      if (Number(done.numUpdatedRows) > 0) await logActivity(scope.tdb, { userId: scope.userId, action: 'paired_platform_a_device', subject: 'device', subjectId: d.id, properties: { platform_a_device_id: pairedId } });
      return view(d.id, current, pairedId);
    }
  }

  const made = await atTerminalProvider('platform-a', () => client.createDeviceCode({ idempotencyKey: Bun.randomUUIDv7(), locationId: paLocation, name: d.name.slice(0, 128) }));
  const saved = await scope.tdb
    .updateTable('devices')
    .set({ platform_a_device_code_id: made.id, platform_a_device_code_location: paLocation })
    .where('id', '=', d.id)
    .where('deleted_at', 'is', null)
    .where((eb) => (stored ? eb('platform_a_device_code_id', '=', stored) : eb('platform_a_device_code_id', 'is', null)))
    .executeTakeFirst();
  if (Number(saved.numUpdatedRows) === 0) {
    // Another request stored its code first (or the device was deleted): answer what the device holds now.
    const now = await findDevice(scope.tdb, d.id);
    if (!now.platform_a_device_code_id) throw errors.conflict('The device was paired by another request meanwhile; ask again.', { reason: 'pairing_changed' });
    const theirs = await atTerminalProvider('platform-a', () => client.getDeviceCode(now.platform_a_device_code_id!));
    return view(d.id, theirs, now.platform_a_device_id);
  }
  await logActivity(scope.tdb, { userId: scope.userId, action: 'created_platform_a_device_code', subject: 'device', subjectId: d.id, properties: { code_id: made.id } });
  return view(d.id, made, d.platform_a_device_id);
}
