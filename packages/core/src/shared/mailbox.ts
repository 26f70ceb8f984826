import { sha256 } from '../accounts/account-tokens.ts';

/**
 * The inbox an address reaches, as the per-recipient throttles count it (a hash: no address is kept in
 * Redis). Case and surrounding space are ignored, the sub-address is dropped (`name+tag@`), and so are
 * the dots of a Gmail local part: `victim+1@`, `victim+2@`, `v.ictim@gmail.com` are one inbox, and a
 * count per exact address let one caller flood it. A value without `@` (a phone number) is kept as it is.
 */
export function mailboxKey(to: string): string {
  const value = to.trim().toLowerCase();
  const at = value.lastIndexOf('@');
  if (at <= 0) return sha256(value);
  const domain = value.slice(at + 1);
  let local = value.slice(0, at);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (domain === 'gmail.com' || domain === 'googlemail.com') return sha256(`${local.replaceAll('.', '')}@gmail.com`);
  return sha256(`${local}@${domain}`);
}

/**
 * An e-mail address as the back-office login throttle counts it, per account tried: lower-cased and
 * hashed (no typed address is kept in Redis), otherwise as typed, since `name+1@` and `name+2@` are two
 * accounts there, not one inbox as for `mailboxKey`.
 */
export function accountKey(email: string): string {
  return sha256(email.toLowerCase());
}
