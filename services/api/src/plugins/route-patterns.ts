/**
 * The registered route pattern a request reaches (`/api/back-office/items/:id` for
 * `/api/back-office/items/0f8f…`), for the hooks that label or decide by route: metrics and auth
 * invalidation.
 *
 * They used to read Elysia's `route` from the context. Elysia compiles one handler per route, and a
 * handler whose hooks read `route` carries its path as a literal, so no two handlers were the same
 * code and each was compiled (and JIT-compiled once warm) separately: about 66 KB of machine code per
 * route. Without the literal, routes of the same shape share one compiled handler (see
 * docs/performance.md, "Hostile-input memory").
 *
 * Matching follows the router: segment by segment, a static segment before a parameter; a trailing
 * slash is ignored; HEAD reaches the GET route.
 */
interface Node {
  route?: Map<string, string>;
  statics: Map<string, Node>;
  param?: Node;
}

const node = (): Node => ({ statics: new Map() });
const segmentsOf = (path: string) => path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));

export class RoutePatterns {
  private readonly root = node();

  constructor(routes: readonly { method: string; path: string }[]) {
    for (const r of routes) {
      let at = this.root;
      for (const s of segmentsOf(r.path)) {
        if (s.startsWith(':')) at = at.param ??= node();
        else {
          let next = at.statics.get(s);
          if (!next) at.statics.set(s, (next = node()));
          at = next;
        }
      }
      (at.route ??= new Map()).set(r.method, r.path);
    }
  }

  /** The pattern of the route `method` and `pathname` reach, or undefined when none does. */
  patternOf(method: string, pathname: string): string | undefined {
    const segments = segmentsOf(pathname);
    const find = (at: Node, i: number, m: string): string | undefined => {
      if (i === segments.length) return at.route?.get(m);
      const s = at.statics.get(segments[i]!);
      return (s && find(s, i + 1, m)) || (at.param && segments[i] !== '' ? find(at.param, i + 1, m) : undefined);
    };
    return find(this.root, 0, method) ?? (method === 'HEAD' ? find(this.root, 0, 'GET') : undefined);
  }
}
