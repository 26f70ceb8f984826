/** Compile-time exhaustiveness for `switch` over a kind tag; throws if reached at run time. */
export function assertNever(x: never, what = 'value'): never {
  throw new TypeError(`Unexpected ${what}: ${JSON.stringify(x)}`);
}
