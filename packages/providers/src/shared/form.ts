/**
 * card-a speaks `application/x-www-form-urlencoded` with bracketed keys (`metadata[location_id]=…`,
 * `payment_method_types[]=card`). These two functions are the edge: flatten for the client, parse for
 * the simulator (one level of nesting, which is all we send).
 */
export function toForm(obj: Record<string, unknown>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v) p.append(`${k}[]`, String(x));
    else if (typeof v === 'object') for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) p.append(`${k}[${k2}]`, String(v2));
    else p.append(k, String(v));
  }
  return p.toString();
}

export function fromForm(text: string): Record<string, string | string[] | Record<string, string>> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const arr = /^([^[\]]+)\[\]$/.exec(key);
    const obj = /^([^[\]]+)\[([^[\]]+)\]$/.exec(key);
    if (arr) (out[arr[1]!] ??= []).push(value);
    else if (obj) (out[obj[1]!] ??= {})[obj[2]!] = value;
    else out[key] = value;
  }
  return out;
}
