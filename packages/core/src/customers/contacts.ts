import { sql, type RawBuilder } from 'kysely';
import { isUniqueViolation } from '@pos/db';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { errors } from '@pos/kernel';

/** A customer's contact as lookups compare it: lower-cased e-mail, E.164 phone. */
export interface Contact {
  readonly email: string | null;
  readonly phone: string | null;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/;

/** Trimmed and lower-cased (the whole address: mailboxes that differ only by case are one customer). */
export function normaliseEmail(raw: string, field = 'email'): string {
  const e = raw.trim().toLowerCase();
  if (!EMAIL.test(e) || e.length > 254) throw errors.field(field, `The ${field} field must be a valid email address.`);
  return e;
}

/**
 * E.164 (`+32470123456`). A national number (`0470 12 34 56`) is read in the location's country, so
 * the same phone typed both ways is one customer.
 */
export function normalisePhone(raw: string, country: string | null, field = 'phone'): string {
  const p = parsePhoneNumberFromString(raw.trim(), (country?.toUpperCase() || 'BE') as CountryCode);
  if (!p || !p.isValid()) throw errors.field(field, `The ${field} field must be a valid phone number.`);
  return p.number;
}

/** The contact of a request: at least one of e-mail and phone, each normalised. */
export function readContact(input: { email?: string | null; phone?: string | null }, country: string | null): Contact {
  const email = input.email ? normaliseEmail(input.email) : null;
  const phone = input.phone ? normalisePhone(input.phone, country) : null;
  if (!email && !phone) throw errors.validation({ phone: ['A phone number or an email address is required.'] });
  return { email, phone };
}

/** What a shared device may show of a contact: enough to recognise it, not to harvest it. */
export function maskEmail(e: string | null): string | null {
  if (!e) return null;
  const [user, domain] = e.split('@') as [string, string];
  return `${user.slice(0, 1)}***@${domain}`;
}
export function maskPhone(p: string | null): string | null {
  return p ? `${'*'.repeat(Math.max(0, p.length - 3))}${p.slice(-3)}` : null;
}

export const contactTaken = (f: 'email' | 'phone') => errors.field(f, `The ${f} has already been taken.`);

/**
 * The write of a contact, with the unique indexes' refusal as the check's own 422: two requests with the
 * same contact at once both pass `contactPatch`, and the index stops the second (never a 500).
 */
export async function writingContacts<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isUniqueViolation(e, 'customers_email_unique')) throw contactTaken('email');
    if (isUniqueViolation(e, 'customers_phone_unique')) throw contactTaken('phone');
    throw e;
  }
}

/**
 * The verified flags a contact write must set beside the new values: a contact whose value changes is no
 * longer proven (the flag survives only when the row's value stays the same; the comparison reads the
 * row being updated, so it holds under concurrent writes too). Spread it into every update of `email`
 * or `phone`: nothing carries a sign-in's proof over to another address.
 */
export function contactFlags(patch: { email?: string | null; phone?: string | null }): { email_verified?: RawBuilder<boolean>; phone_verified?: RawBuilder<boolean> } {
  const out: { email_verified?: RawBuilder<boolean>; phone_verified?: RawBuilder<boolean> } = {};
  if (patch.email !== undefined) out.email_verified = sql<boolean>`email_verified and email is not distinct from ${patch.email}`;
  if (patch.phone !== undefined) out.phone_verified = sql<boolean>`phone_verified and phone is not distinct from ${patch.phone}`;
  return out;
}
