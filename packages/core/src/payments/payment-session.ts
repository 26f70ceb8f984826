/**
 * The provider session a transaction's payment runs in, as its snapshot names it: card-b `sessionId`
 * (its idempotency key), card-a `id` (the payment intent), platform-a `checkout_id`. A retry starts a
 * new one, so an outcome learnt about one session (a poll's answer, a webhook) may arrive when the
 * transaction has moved on to the next.
 */
export const SESSION_FIELDS = ['sessionId', 'id', 'checkout_id'] as const;
export type SessionField = (typeof SESSION_FIELDS)[number];

/** What an outcome is about: the fields given must still be the transaction's (and its key, when given). */
export interface SessionRef {
  readonly idempotency_key?: string;
  readonly fields: Partial<Record<SessionField, unknown>>;
}

interface SessionHolder {
  readonly idempotency_key: string;
  readonly payment_snapshot: Record<string, unknown>;
}

/** The session the transaction runs now (every field, and its key). */
export function sessionRefOf(t: SessionHolder): SessionRef {
  return { idempotency_key: t.idempotency_key, fields: Object.fromEntries(SESSION_FIELDS.map((f) => [f, t.payment_snapshot[f] ?? null])) };
}

/** True when `ref` names the session `t` runs now. */
export function isCurrentSession(ref: SessionRef, t: SessionHolder): boolean {
  if (ref.idempotency_key !== undefined && ref.idempotency_key !== t.idempotency_key) return false;
  return SESSION_FIELDS.every((f) => !(f in ref.fields) || (ref.fields[f] ?? null) === (t.payment_snapshot[f] ?? null));
}
