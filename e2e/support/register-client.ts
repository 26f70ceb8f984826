import type { APIRequestContext, APIResponse } from '@playwright/test';

export interface OrderLine {
  uuid: string;
  item_id: string;
  qty: number;
  unit_price: number;
  price_source: 'catalog';
  modifiers: unknown[];
  discount?: { type: 'pct' | 'amount'; value: number };
}

/** What the client keeps after a 401 (spec 2 section 5 rule 2). */
export type SessionLoss = 'staff' | 'device';

/**
 * A simulated register that behaves as spec 2 says the app does: it sends only intent (lines), takes
 * totals, state, version, tender and fiscal data from responses, handles a stale version by refetching,
 * adopting the server version, reapplying its lines and retrying once, reads a 401 with a staff token
 * as an expired staff session and without one as an invalid device, and treats a 5xx as transient
 * (retry with backoff), never as offline.
 */
export class RegisterClient {
  deviceToken: string | null = null;
  staffToken: string | null = null;
  lost: SessionLoss | null = null;
  /** Server versions the client last saw, per order. */
  readonly versions = new Map<string, number>();
  transientRetries = 0;

  constructor(
    private readonly http: APIRequestContext,
    private readonly apiKey: string,
  ) {}

  private headers(staff: boolean): Record<string, string> {
    const h: Record<string, string> = { 'x-client-api-key': this.apiKey };
    if (this.deviceToken) h.authorization = `Bearer ${this.deviceToken}`;
    if (staff && this.staffToken) h['x-pos-staff-token'] = this.staffToken;
    return h;
  }

  /** One request with the client's 401 and 5xx rules applied. */
  async send(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, staff = true): Promise<APIResponse> {
    for (let attempt = 0; ; attempt++) {
      const sentStaff = staff && !!this.staffToken;
      const res = await this.http.fetch(`/api${path}`, { method, headers: this.headers(staff), data: body === undefined ? undefined : body });
      if (res.status() >= 500 && attempt < 3) {
        this.transientRetries++;
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        continue;
      }
      if (res.status() === 401) {
        if (sentStaff) {
          this.staffToken = null;
          this.lost = 'staff';
        } else {
          this.staffToken = null;
          this.deviceToken = null;
          this.lost = 'device';
        }
      }
      return res;
    }
  }

  async activate(code: string): Promise<{ id: string; location_id: string; merchant_slug: string }> {
    const res = await this.http.post('/api/device-auth/activate', { data: { activation_code: code }, headers: { 'x-client-api-key': this.apiKey } });
    if (res.status() !== 200) throw new Error(`activation failed: ${res.status()} ${await res.text()}`);
    const body = await res.json();
    this.deviceToken = body.token;
    this.lost = null;
    return body.device_details;
  }

  async pinLogin(pin: string): Promise<{ id: string; name: string; role: string }> {
    const res = await this.send('POST', '/pos/staff/pin-login', { pin }, false);
    if (res.status() !== 200) throw new Error(`pin-login failed: ${res.status()} ${await res.text()}`);
    const body = await res.json();
    this.staffToken = body.staff_token;
    this.lost = null;
    return body.staff;
  }

  async pinLogout(): Promise<void> {
    // Best effort (spec 2 limits): failures are ignored.
    await this.send('POST', '/pos/staff/pin-logout').catch(() => undefined);
    this.staffToken = null;
  }

  async escalate(managerPin: string, permission: string): Promise<string> {
    const res = await this.send('POST', '/pos/staff/escalate', { manager_pin: managerPin, permission });
    if (res.status() !== 200) throw new Error(`escalate failed: ${res.status()} ${await res.text()}`);
    return (await res.json()).approval_token;
  }

  /** Full-document upsert with the stale-version rule: refetch, adopt the version, reapply lines, retry once. */
  async saveOrder(clientUuid: string, lines: OrderLine[], extra: Record<string, unknown> = {}): Promise<APIResponse> {
    const doc = (version: number) => ({ expected_version: version, order_profile: { behavior: 'dine_in' }, table_number: '12', lines, ...extra });
    let res = await this.send('PUT', `/pos/orders/${clientUuid}`, doc(this.versions.get(clientUuid) ?? 0));
    if (res.status() === 409) {
      const conflict = await res.json();
      if (conflict.current_version === undefined) return res; // a business-rule 409 is not retried
      const current = await this.send('GET', `/pos/orders/${clientUuid}`);
      const server = await current.json();
      this.versions.set(clientUuid, server.version);
      res = await this.send('PUT', `/pos/orders/${clientUuid}`, doc(server.version));
    }
    if (res.ok()) this.versions.set(clientUuid, (await res.json()).version);
    return res;
  }

  async fire(clientUuid: string): Promise<APIResponse> {
    const res = await this.send('POST', `/pos/orders/${clientUuid}/fire`);
    if (res.ok()) this.versions.set(clientUuid, (await res.json()).version);
    return res;
  }

  async settle(clientUuid: string, body: unknown): Promise<APIResponse> {
    return this.send('POST', `/pos/orders/${clientUuid}/settle`, body);
  }
}
