/**
 * Whether a location's register must sign with a fiscal data module: spec 2 `GET /pos/fiscal-locations`
 * says `mandated` "is the same answer the register enforces". The register signs every sale, refund,
 * till and business-day event at every location and refuses them without an active enrolment (422
 * `fiscal_not_enrolled`: settle, X and Z reports, signed till changes), so every location is mandated.
 * The Belgian law asks it of Belgian hospitality businesses since 1 July 2026; a register that sells
 * unsigned elsewhere is not built (decisions.md, twenty-seventh session). Should it be, this function is
 * the one rule both the register and the report must read.
 */
export function registerRequiresSigning(_location: { readonly country: string; readonly timezone: string }, _at: Date): boolean {
  return true;
}
