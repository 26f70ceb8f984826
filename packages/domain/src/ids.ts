/** A UUID in canonical text form (8-4-4-4-12 hexadecimal digits, any version, either case). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for a UUID's text. Ids arrive as plain strings at the edge (paths, bodies, provider payloads):
 * one that is not a UUID is simply not found, and never reaches a `uuid` column.
 */
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);
