/**
 * Which routes take no body: a route without a body schema ignores a body only when it is absent,
 * empty or `{}` (issue 8, point 7). Elysia does not tell a parse hook which route matched, so the
 * routes are matched here by their registered patterns; a path that also matches a route with a
 * body schema (a static segment beside a parameter) counts as taking one.
 */
export interface RouteShape {
  method: string;
  path: string;
  hasBody: boolean;
}

const toRegExp = (path: string) =>
  new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\/:\w+\\\?/g, '(?:/[^/]+)?').replace(/:\w+/g, '[^/]+').replace(/\/\*$/, '/.*')}/?$`);

export class BodyLessRoutes {
  private readonly withBody = new Map<string, RegExp[]>();
  private readonly without = new Map<string, RegExp[]>();

  constructor(routes: readonly RouteShape[]) {
    for (const r of routes) {
      const map = r.hasBody ? this.withBody : this.without;
      const list = map.get(r.method) ?? [];
      list.push(toRegExp(r.path));
      map.set(r.method, list);
    }
  }

  /** True when the method and path reach a route that declares no body. */
  takesNoBody(method: string, pathname: string): boolean {
    const hit = (m: Map<string, RegExp[]>) => (m.get(method) ?? []).some((re) => re.test(pathname));
    return hit(this.without) && !hit(this.withBody);
  }
}

/** An absent body, an empty one or `{}`: what a body-less route accepts. */
export function isEmptyBody(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
}
