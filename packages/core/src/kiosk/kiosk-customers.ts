import type { TenantDb } from '@pos/db';
import { isUniqueViolation, withWriteRetry } from '@pos/db';
import { errors } from '@pos/kernel';
import { maskEmail, maskPhone, readContact } from '../customers/contacts.ts';
import { findCustomerByContact, findOrEnrolCustomer, getCustomer, type CustomerRow } from '../customers/customers.ts';
import { accountOf, programAt, recentLedger, type LoyaltyProgramView } from '../customers/loyalty.ts';
import { issueLoyaltyToken, resolveLoyaltyToken } from '../customers/loyalty-tokens.ts';

/** The kiosk device as these use cases need it. */
export interface KioskAt {
  readonly id: string;
  readonly location_id: string;
}

export interface KioskCustomerView {
  id: string;
  name: string | null;
  /** Masked: a kiosk is a shared screen. */
  email: string | null;
  phone: string | null;
}

export interface KioskLoyaltySession {
  customer: KioskCustomerView;
  created: boolean;
  loyalty_token: string;
  expires_at: string;
  loyalty: { points: number; lifetime_points: number; program: LoyaltyProgramView | null };
}

const view = (c: CustomerRow): KioskCustomerView => ({ id: c.id, name: c.name, email: maskEmail(c.email), phone: maskPhone(c.phone) });

async function countryOf(tdb: TenantDb, locationId: string): Promise<string | null> {
  const l = await tdb.selectFrom('locations').select('country').where('id', '=', locationId).executeTakeFirst();
  return l?.country ?? null;
}

async function session(tdb: TenantDb, kiosk: KioskAt, customer: CustomerRow, created: boolean, token: { token: string; expires_at: Date }): Promise<KioskLoyaltySession> {
  const [account, program] = await Promise.all([accountOf(tdb, customer.id), programAt(tdb, kiosk.location_id)]);
  return { customer: view(customer), created, loyalty_token: token.token, expires_at: token.expires_at.toISOString(), loyalty: { ...account, program } };
}


const IDENTIFY_ATTEMPTS = 3;

/**
 * `POST /kiosk/customer/identify`: the customer with this phone or e-mail, enrolled when new (name
 * optional), and a loyalty token the kiosk passes to `create-intent`. Two kiosks enrolling the same
 * contact at once: the loser's write hits a unique index and a later attempt finds the winner.
 */
export async function identifyKioskCustomer(tdb: TenantDb, kiosk: KioskAt, input: { name?: string | null; email?: string | null; phone?: string | null }, now: Date): Promise<KioskLoyaltySession> {
  const contact = readContact(input, await countryOf(tdb, kiosk.location_id));
  const name = input.name?.trim() || null;
  const attempt = () =>
    withWriteRetry(() =>
      tdb.transaction().execute(async (tx) => {
        const r = await findOrEnrolCustomer(tx, contact, name, now, 'kiosk', { addContacts: false });
        const token = await issueLoyaltyToken(tx, r.customer.id, kiosk.id, now);
        return { ...r, token };
      }),
    );
  // A lost race means another request just took one of our (at most two) contacts; once both are held,
  // nothing is written to a contact any more, so the third attempt finds without losing (a single retry
  // was a 500 when kiosks sent crossed phone and e-mail pairs at once).
  for (let n = 1; ; n++) {
    try {
      const r = await attempt();
      return session(tdb, kiosk, r.customer, r.created, r.token);
    } catch (e) {
      if (n >= IDENTIFY_ATTEMPTS || !isUniqueViolation(e)) throw e;
    }
  }
}

/** `POST /kiosk/loyalty` (loyalty login): an enrolled customer only (404 otherwise), and a fresh token. */
export async function kioskLoyaltyLogin(tdb: TenantDb, kiosk: KioskAt, input: { email?: string | null; phone?: string | null }, now: Date): Promise<KioskLoyaltySession> {
  const contact = readContact(input, await countryOf(tdb, kiosk.location_id));
  const customer = await findCustomerByContact(tdb, contact);
  if (!customer) throw errors.notFound('customer');
  const token = await issueLoyaltyToken(tdb, customer.id, kiosk.id, now);
  return session(tdb, kiosk, customer, false, token);
}

/** `GET /kiosk/loyalty`: the details behind a live token of this kiosk (the token is not spent). */
export async function kioskLoyaltyDetails(tdb: TenantDb, kiosk: KioskAt, token: string, now: Date) {
  const { customer_id } = await resolveLoyaltyToken(tdb, token, kiosk.id, now);
  const customer = await getCustomer(tdb, customer_id);
  const [account, program, ledger] = await Promise.all([accountOf(tdb, customer.id), programAt(tdb, kiosk.location_id), recentLedger(tdb, customer.id)]);
  return {
    customer: view(customer),
    loyalty: { ...account, program },
    history: ledger.map((l) => ({ kind: l.kind, points: l.points, balance_after: l.balance_after, transaction_id: l.transaction_id, at: l.created_at.toISOString() })),
  };
}
