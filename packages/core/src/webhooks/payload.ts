/** Reading a verified webhook body: providers' JSON is untrusted in shape, so every read is total. */
export type Obj = Record<string, unknown>;

/** The body as JSON, or null when it is not JSON (such a body is stored and acknowledged, not acted on). */
export function parsePayload(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** A plain object, or an empty one. */
export const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** A non-empty string, or null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
