import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

export interface PlatformAConfig {
  /** API base URL (`PLATFORM_A_BASE_URL`). */
  readonly baseUrl: string;
  /** Access token (`PLATFORM_A_ACCESS_TOKEN`). */
  readonly accessToken: string;
  readonly timeoutMs?: number;
}

export type PlatformACheckoutStatus = 'PENDING' | 'IN_PROGRESS' | 'CANCEL_REQUESTED' | 'CANCELED' | 'COMPLETED';

export interface PlatformACheckout {
  readonly id: string;
  /** `amount` in cents. */
  readonly amount_money: { readonly amount: number; readonly currency: string };
  /** A tip added on the terminal, beside `amount_money` (cents). */
  readonly tip_money?: { readonly amount: number; readonly currency: string };
  readonly device_options: { readonly device_id: string };
  readonly reference_id: string;
  readonly status: PlatformACheckoutStatus;
  readonly cancel_reason?: string;
  readonly payment_ids: readonly string[];
}

export interface PlatformAPaymentRecord {
  readonly id: string;
  readonly amount_money: { readonly amount: number; readonly currency: string };
  readonly status: string;
  readonly reference_id: string;
}

/** A terminal pairing code (`/v2/devices/codes`): entered on the terminal, it pairs it to the location; `device_id` once `PAIRED`. */
export interface PlatformADeviceCode {
  readonly id: string;
  readonly code: string;
  readonly name: string;
  readonly product_type: 'TERMINAL_API';
  readonly location_id: string;
  readonly status: 'UNPAIRED' | 'PAIRED' | 'EXPIRED';
  readonly device_id?: string;
  /** ISO 8601: the code expires unpaired after this. */
  readonly pair_by: string;
}

/** platform-a client: terminal checkouts and online payments. `amount_money.amount` is cents. */
export class PlatformAClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly config: PlatformAConfig) {
    this.base = trimSlash(config.baseUrl);
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<PlatformACheckout> {
    const b = await this.raw(method, path, body);
    if (!b?.checkout || typeof b.checkout.id !== 'string') throw new ProviderError('platform-a', 'invalid_response', 'answer without a checkout');
    return b.checkout as PlatformACheckout;
  }

  private async raw(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
    const res = await providerFetch(
      'platform-a',
      `${this.base}${path}`,
      { method, headers: { authorization: `Bearer ${this.config.accessToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) },
      this.timeoutMs,
    );
    const b = await readJson('platform-a', res);
    if (!res.ok) {
      const e = Array.isArray(b?.errors) ? b.errors[0] : null;
      throw new ProviderError('platform-a', 'http', typeof e?.detail === 'string' ? e.detail : `HTTP ${res.status}`, res.status, typeof e?.code === 'string' ? e.code : null);
    }
    return b;
  }

  /** An online payment from a card nonce (online ordering on platform-a). A decline is a ProviderError 402. */
  async createPayment(input: { idempotencyKey: string; sourceId: string; amount: number; currency: string; referenceId: string; locationId: string }): Promise<PlatformAPaymentRecord> {
    const b = await this.raw('POST', '/v2/payments', {
      idempotency_key: input.idempotencyKey,
      source_id: input.sourceId,
      amount_money: { amount: input.amount, currency: input.currency },
      reference_id: input.referenceId,
      location_id: input.locationId,
    });
    if (!b?.payment || typeof b.payment.id !== 'string') throw new ProviderError('platform-a', 'invalid_response', 'answer without a payment');
    return b.payment as PlatformAPaymentRecord;
  }

  async getPayment(id: string): Promise<PlatformAPaymentRecord> {
    const b = await this.raw('GET', `/v2/payments/${encodeURIComponent(id)}`);
    if (!b?.payment || typeof b.payment.id !== 'string') throw new ProviderError('platform-a', 'invalid_response', 'answer without a payment');
    return b.payment as PlatformAPaymentRecord;
  }

  createTerminalCheckout(input: { idempotencyKey: string; amount: number; currency: string; deviceId: string; referenceId: string; note?: string }) {
    return this.call('POST', '/v2/terminals/checkouts', {
      idempotency_key: input.idempotencyKey,
      checkout: { amount_money: { amount: input.amount, currency: input.currency }, device_options: { device_id: input.deviceId }, reference_id: input.referenceId, note: input.note ?? '' },
    });
  }

  /** A pairing code for a new terminal at `locationId` (platform-a's location id). */
  async createDeviceCode(input: { idempotencyKey: string; locationId: string; name: string }): Promise<PlatformADeviceCode> {
    const b = await this.raw('POST', '/v2/devices/codes', { idempotency_key: input.idempotencyKey, device_code: { name: input.name, product_type: 'TERMINAL_API', location_id: input.locationId } });
    return deviceCodeOf(b);
  }

  async getDeviceCode(id: string): Promise<PlatformADeviceCode> {
    return deviceCodeOf(await this.raw('GET', `/v2/devices/codes/${encodeURIComponent(id)}`));
  }

  getTerminalCheckout(id: string) {
    return this.call('GET', `/v2/terminals/checkouts/${encodeURIComponent(id)}`);
  }

  cancelTerminalCheckout(id: string) {
    return this.call('POST', `/v2/terminals/checkouts/${encodeURIComponent(id)}/cancel`, {});
  }

  /**
   * Pushes catalog items (our side of the two-way catalog sync): one ITEM per item with one fixed-price
   * variation, keyed by the client id `#<our id>`, so a repeat updates the same objects. Answers the
   * number of objects platform-a holds after the call.
   */
  async upsertCatalog(idempotencyKey: string, items: readonly { id: string; name: string; price: number; currency: string }[]): Promise<number> {
    const objects = items.map((i) => ({
      type: 'ITEM',
      id: `#${i.id}`,
      item_data: { name: i.name, variations: [{ type: 'ITEM_VARIATION', id: `#${i.id}-v`, item_variation_data: { name: 'Regular', pricing_type: 'FIXED_PRICING', price_money: { amount: i.price, currency: i.currency } } }] },
    }));
    let count = 0;
    // Batches of at most 1,000 objects.
    for (let at = 0; at < objects.length; at += 1000) {
      const b = await this.raw('POST', '/v2/catalog/batch-upsert', { idempotency_key: `${idempotencyKey}-${at / 1000}`.slice(0, 128), batches: [{ objects: objects.slice(at, at + 1000) }] });
      if (!Array.isArray(b?.id_mappings)) throw new ProviderError('platform-a', 'invalid_response', 'answer without id_mappings');
      count += b.id_mappings.length;
    }
    return count;
  }
}

function deviceCodeOf(b: any): PlatformADeviceCode {
  const c = b?.device_code;
  if (!c || typeof c.id !== 'string' || typeof c.code !== 'string' || typeof c.status !== 'string') throw new ProviderError('platform-a', 'invalid_response', 'answer without a device code');
  return c as PlatformADeviceCode;
}
