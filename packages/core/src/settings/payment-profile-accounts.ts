import type Redis from 'ioredis';
import { errors, type Logger } from '@pos/kernel';
import { isUniqueViolation, type TenantDb } from '@pos/db';
import type { CardAAccount, CardAClient, CardAPayout, CardAPayoutSchedule } from '@pos/providers/card-a/card-a-client';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { paging, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { atProvider } from './billing-subscriptions.ts';
import { providerObjectOnce } from './provider-object-once.ts';
import { findPaymentProfile, showPaymentProfile, type PaymentProfileView } from './payment-profiles.ts';

/**
 * The provider accounts of a payment profile (spec 1 "Settings"): the card-a connected account
 * (created on the first onboarding link, then an embedded-components session, payouts, statement
 * descriptor, business website, payout schedule — each carried out at card-a through its client, which
 * validates as the provider does) and the card-b merchant account the kiosk terminals settle to.
 * A provider refusal is 422 with the provider's message; the provider away is 503.
 */

export const CARD_A_NOT_CONFIGURED = 'card-a is not configured.';
export const NO_CARD_A_ACCOUNT = 'The payment profile has no card-a account yet; start the onboarding first.';
/** Payouts a datatable reads through (the provider pages by 100; older payouts are in its dashboard). */
const PAYOUT_WINDOW = 1_000;

export interface CardAAccountView {
  account_id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  statement_descriptor: string | null;
  business_website: string | null;
  payout_schedule: { interval: string; weekly_anchor: string | null; monthly_anchor: number | null; delay_days: number };
}

export interface PayoutView {
  id: string;
  /** Cents. */
  amount: number;
  currency: string;
  status: string;
  description: string | null;
  arrival_date: string;
  created_at: string;
}

const accountView = (a: CardAAccount): CardAAccountView => ({
  account_id: a.id,
  charges_enabled: a.charges_enabled,
  payouts_enabled: a.payouts_enabled,
  details_submitted: a.details_submitted,
  statement_descriptor: a.settings.payments.statement_descriptor,
  business_website: a.business_profile.url,
  payout_schedule: {
    interval: a.settings.payouts.schedule.interval,
    weekly_anchor: a.settings.payouts.schedule.weekly_anchor ?? null,
    monthly_anchor: a.settings.payouts.schedule.monthly_anchor ?? null,
    delay_days: a.settings.payouts.schedule.delay_days,
  },
});

const payoutView = (p: CardAPayout): PayoutView => ({
  id: p.id,
  amount: p.amount,
  currency: p.currency.toUpperCase(),
  status: p.status,
  description: p.description,
  arrival_date: new Date(p.arrival_date * 1000).toISOString(),
  created_at: new Date(p.created * 1000).toISOString(),
});

/** The provider, once the profile is known to be the caller's (another merchant's profile stays a 404). */
function provider(cardA: CardAClient | null): CardAClient {
  if (!cardA) throw errors.unavailable(CARD_A_NOT_CONFIGURED);
  return cardA;
}

async function accountOf(tdb: TenantDb, cardA: CardAClient | null, id: string): Promise<{ account: string; provider: CardAClient }> {
  const profile = await findPaymentProfile(tdb, id);
  const p = provider(cardA);
  if (!profile.card_a_account_id) throw errors.businessRule(NO_CARD_A_ACCOUNT);
  return { account: profile.card_a_account_id, provider: p };
}

/**
 * `POST …/{id}/card-a/url`: the provider's hosted onboarding link. The profile's connected account is
 * created on the first call (at most one per profile: `providerObjectOnce`).
 */
export async function cardAOnboardingUrl(
  tdb: TenantDb,
  cardA: CardAClient | null,
  deps: { readonly redis: Redis; readonly log: Logger },
  input: { userId: string; merchantId: string; profileId: string; returnUrl: string; refreshUrl: string; country: string; email?: string },
): Promise<{ url: string; expires_at: string; account_id: string }> {
  const profile = await findPaymentProfile(tdb, input.profileId);
  const cardAClient = provider(cardA);
  const request = { country: input.country, email: input.email, metadata: { merchant_id: input.merchantId, payment_profile_id: profile.id } };
  const accountId = await providerObjectOnce(deps, {
    lockName: `payment_profile_account_${profile.id}`,
    stored: async () => (await findPaymentProfile(tdb, profile.id)).card_a_account_id,
    request,
    create: async (idempotencyKey) => (await atProvider(() => cardAClient.createAccount({ ...request, idempotencyKey }))).id,
    store: (id) =>
      inTenantTx(tdb, async (tx) => {
        const row = await findPaymentProfile(tx, profile.id, true);
        if (row.card_a_account_id) return row.card_a_account_id;
        await tx.updateTable('payment_profiles').set({ card_a_account_id: id, updated_at: new Date() }).where('id', '=', profile.id).execute();
        await logActivity(tx, { userId: input.userId, action: 'connected', subject: 'payment_profile', subjectId: profile.id, properties: { provider: 'card-a', account_id: id } });
        return id;
      }),
  });
  const link = await atProvider(() => cardAClient.createAccountLink({ account: accountId, returnUrl: input.returnUrl, refreshUrl: input.refreshUrl }));
  return { url: link.url, expires_at: new Date(link.expires_at * 1000).toISOString(), account_id: accountId };
}

/** `POST …/{id}/card-a/account-session`: a client secret for the provider's embedded components. */
export async function cardAAccountSession(tdb: TenantDb, cardA: CardAClient | null, profileId: string): Promise<{ account_id: string; client_secret: string; expires_at: string }> {
  const { account, provider } = await accountOf(tdb, cardA, profileId);
  const s = await atProvider(() => provider.createAccountSession(account));
  return { account_id: account, client_secret: s.client_secret, expires_at: new Date(s.expires_at * 1000).toISOString() };
}

/** `GET …/{id}/card-a/payouts`: one provider page, newest first; `starting_after` is the last id seen. */
export async function cardAPayouts(tdb: TenantDb, cardA: CardAClient | null, profileId: string, q: { limit?: number; starting_after?: string }): Promise<{ data: PayoutView[]; has_more: boolean }> {
  const { account, provider } = await accountOf(tdb, cardA, profileId);
  const page = await atProvider(() => provider.listPayouts(account, { limit: q.limit ?? 10, startingAfter: q.starting_after }));
  return { data: page.data.map(payoutView), has_more: page.has_more };
}

/** `GET …/{id}/card-a/payouts/datatable`: the newest payouts (up to 1,000) as a numbered page. */
export async function cardAPayoutDatatable(tdb: TenantDb, cardA: CardAClient | null, profileId: string, q: DatatableQuery): Promise<Datatable<PayoutView>> {
  const { account, provider } = await accountOf(tdb, cardA, profileId);
  const { page, perPage, offset } = paging(q);
  const all: CardAPayout[] = [];
  for (let after: string | undefined; all.length < PAYOUT_WINDOW; ) {
    const batch = await atProvider(() => provider.listPayouts(account, { limit: 100, startingAfter: after }));
    all.push(...batch.data);
    if (!batch.has_more || batch.data.length === 0) break;
    after = batch.data.at(-1)!.id;
  }
  return { data: all.slice(offset, offset + perPage).map(payoutView), total: all.length, page, per_page: perPage };
}

async function updateAccount(tdb: TenantDb, cardA: CardAClient | null, userId: string, profileId: string, change: Parameters<CardAClient['updateAccount']>[1], field: string): Promise<CardAAccountView> {
  const { account, provider } = await accountOf(tdb, cardA, profileId);
  const updated = await atProvider(() => provider.updateAccount(account, change));
  await logActivity(tdb, { userId, action: 'updated', subject: 'payment_profile', subjectId: profileId, properties: { provider: 'card-a', fields: [field] } });
  return accountView(updated);
}

/** `PUT …/card-a/descriptor`: what the cardholder's statement shows. */
export const setCardADescriptor = (tdb: TenantDb, cardA: CardAClient | null, userId: string, profileId: string, descriptor: string) =>
  updateAccount(tdb, cardA, userId, profileId, { statementDescriptor: descriptor }, 'statement_descriptor');

/** `PUT …/card-a/business-website`. */
export const setCardABusinessWebsite = (tdb: TenantDb, cardA: CardAClient | null, userId: string, profileId: string, url: string) =>
  updateAccount(tdb, cardA, userId, profileId, { businessUrl: url }, 'business_website');

/** `PUT …/card-a/payout-schedule`: daily, weekly on a weekday, monthly on a day, or manual. */
export function setCardAPayoutSchedule(tdb: TenantDb, cardA: CardAClient | null, userId: string, profileId: string, schedule: CardAPayoutSchedule): Promise<CardAAccountView> {
  if (schedule.interval === 'weekly' && !schedule.weekly_anchor) throw errors.field('weekly_anchor', 'The weekly anchor field is required when interval is weekly.');
  if (schedule.interval === 'monthly' && !schedule.monthly_anchor) throw errors.field('monthly_anchor', 'The monthly anchor field is required when interval is monthly.');
  const clean: CardAPayoutSchedule = {
    interval: schedule.interval,
    ...(schedule.interval === 'weekly' ? { weekly_anchor: schedule.weekly_anchor } : {}),
    ...(schedule.interval === 'monthly' ? { monthly_anchor: schedule.monthly_anchor } : {}),
  };
  return updateAccount(tdb, cardA, userId, profileId, { payoutSchedule: clean }, 'payout_schedule');
}

export const CARD_B_ACCOUNT_TAKEN = 'This card-b account belongs to another payment profile.';

/** `POST …/{id}/card-b/account`: the card-b merchant account the profile's terminals settle to (one profile per account). */
export async function setCardBAccount(tdb: TenantDb, userId: string, profileId: string, accountId: string): Promise<PaymentProfileView> {
  const taken = () => errors.field('account_id', CARD_B_ACCOUNT_TAKEN);
  try {
    await inTenantTx(tdb, async (tx) => {
      const profile = await findPaymentProfile(tx, profileId, true);
      const other = await tx.selectFrom('payment_profiles').select('id').where('card_b_account_id', '=', accountId).where('id', '!=', profile.id).executeTakeFirst();
      if (other) throw taken();
      // Another account: what card-b reported of the previous one (connected, verified) is not this one's.
      const status = profile.card_b_account_id === accountId ? {} : { card_b_connected_at: null, card_b_verified: null, card_b_verification_at: null };
      await tx.updateTable('payment_profiles').set({ card_b_account_id: accountId, ...status, updated_at: new Date() }).where('id', '=', profile.id).execute();
      await logActivity(tx, { userId, action: 'connected', subject: 'payment_profile', subjectId: profile.id, properties: { provider: 'card-b', account_id: accountId } });
    });
  } catch (e) {
    // Two profiles sent the same account at once: both passed the check, the unique index keeps one.
    if (isUniqueViolation(e, 'payment_profiles_card_b_account_unique')) throw taken();
    throw e;
  }
  return showPaymentProfile(tdb, profileId);
}
