/**
 * The provider session a transaction's payment runs in, as its snapshot names it: the key the start
 * was made with (`idempotency_key`, written with every start, put back with the snapshot when a start
 * is undone) and what the provider calls it: card-b `sessionId` (that key), card-a `id` (the payment
 * intent), platform-a `checkout_id`. A retry starts a new one, so an outcome learnt about one session
 * (a poll's answer, a webhook) may arrive when the transaction has moved on to the next.
 *
 * The snapshot's key, not the row's `idempotency_key` column: a retry rotates the column before its
 * start, and a start refused outright (terminal busy) leaves it rotated while the order still runs the
 * session before.
 */
export const SESSION_FIELDS = ['idempotency_key', 'sessionId', 'id', 'checkout_id'] as const;
export type SessionField = (typeof SESSION_FIELDS)[number];

/** What an outcome is about: the snapshot fields given must still be the transaction's. */
export type SessionRef = Partial<Record<SessionField, unknown>>;

interface SessionHolder {
  readonly payment_snapshot: Record<string, unknown>;
}

/** The session the transaction runs now (every field). */
export function sessionRefOf(t: SessionHolder): SessionRef {
  return Object.fromEntries(SESSION_FIELDS.map((f) => [f, t.payment_snapshot[f] ?? null]));
}

/** True when `ref` names the session `t` runs now. */
export function isCurrentSession(ref: SessionRef, t: SessionHolder): boolean {
  return SESSION_FIELDS.every((f) => !(f in ref) || (ref[f] ?? null) === (t.payment_snapshot[f] ?? null));
}
