/**
 * The app's registered routes as one table, for the hooks that need to know which route a request
 * reaches before or outside Elysia's own routing: metrics and auth invalidation (the route pattern,
 * `/api/back-office/items/:id` for `/api/back-office/items/0f8f…`) and the request guard (does that
 * route take a body).
 *
 * The hooks used to read Elysia's `route` from the context. Elysia compiles one handler per route, and
 * a handler whose hooks read `route` carries its path as a literal, so no two handlers were the same
 * code and each was compiled (and JIT-compiled once warm) separately: about 66 KB of machine code per
 * route. Without the literal, routes of the same shape share one compiled handler (see
 * docs/performance.md, "Hostile-input memory").
 *
 * Matching follows the router: segment by segment, a static segment before a parameter; a trailing
 * slash is ignored; HEAD reaches the GET route.
 */
export interface RouteShape {
  method: string;
  path: string;
  /** The route declares a body schema (only the request guard asks). */
  hasBody?: boolean;
}

interface Node {
  route?: Map<string, RouteShape>;
  statics: Map<string, Node>;
  param?: Node;
}

const node = (): Node => ({ statics: new Map() });
const segmentsOf = (path: string) => path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));

export class RoutePatterns {
  private readonly root = node();
  /** A request's pattern, found once however many hooks ask. */
  private readonly byRequest = new WeakMap<Request, string | undefined>();

  constructor(routes: readonly RouteShape[]) {
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
      (at.route ??= new Map()).set(r.method, r);
    }
  }

  /** The pattern of the route `method` and `pathname` reach, or undefined when none does. */
  patternOf(method: string, pathname: string): string | undefined {
    const segments = segmentsOf(pathname);
    const find = (at: Node, i: number, m: string): string | undefined => {
      if (i === segments.length) return at.route?.get(m)?.path;
      const s = at.statics.get(segments[i]!);
      return (s && find(s, i + 1, m)) || (at.param && segments[i] !== '' ? find(at.param, i + 1, m) : undefined);
    };
    return find(this.root, 0, method) ?? (method === 'HEAD' ? find(this.root, 0, 'GET') : undefined);
  }

  /** `patternOf` for a request, remembered for that request. */
  patternOfRequest(request: Request): string | undefined {
    if (this.byRequest.has(request)) return this.byRequest.get(request);
    const pattern = this.patternOf(request.method, new URL(request.url).pathname);
    this.byRequest.set(request, pattern);
    return pattern;
  }

  /**
   * True when `method` and `pathname` reach a route that declares no body (issue 8, point 7). Elysia
   * does not tell a parse hook which route matched; a path that also matches a route with a body
   * schema (a static segment beside a parameter) counts as taking one.
   */
  takesNoBody(method: string, pathname: string): boolean {
    const segments = segmentsOf(pathname);
    let without = false;
    let withBody = false;
    const visit = (at: Node, i: number): void => {
      if (i === segments.length) {
        const r = at.route?.get(method);
        if (r?.hasBody) withBody = true;
        else if (r) without = true;
        return;
      }
      const s = at.statics.get(segments[i]!);
      if (s) visit(s, i + 1);
      if (at.param && segments[i] !== '') visit(at.param, i + 1);
    };
    visit(this.root, 0);
    return without && !withBody;
  }
}
