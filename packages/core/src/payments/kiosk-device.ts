/** The kiosk device as the payment use cases need it (from the device token's record). */
export interface KioskDevice {
  readonly id: string;
  readonly location_id: string;
  readonly card_b_terminal_id: string | null;
  readonly card_a_reader_id: string | null;
  readonly platform_a_device_id: string | null;
  /** The back office's terminal payment switch (`deactivate-payment`); absent means on. */
  readonly payment_enabled?: boolean;
}

/**
 * A location's payment settings (`locations.payment_settings`, docs/decisions.md "Payments"). The
 * in-person provider is not among them: the location's payment profile reports it (in-person-provider.ts).
 */
export interface LocationPaymentSettings {
  readonly platform_a_active: boolean;
  readonly platform_a_location_id: string | null;
  readonly test_mode: boolean;
}

export function readPaymentSettings(raw: Record<string, unknown> | null | undefined): LocationPaymentSettings {
  const r = raw ?? {};
  const pa = (r.platform_a ?? {}) as Record<string, unknown>;
  return {
    platform_a_active: pa.active === true,
    platform_a_location_id: typeof pa.location_id === 'string' ? pa.location_id : null,
    test_mode: r.test_mode === true,
  };
}
