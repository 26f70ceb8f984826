import { dispatch, jsonBody, route } from '../shared/sim-server.ts';

/**
 * VAT check simulator: a real HTTP server answering like the EU VIES REST service.
 * - Belgian numbers (10 digits, leading 0 or 1) are valid when their mod-97 check digits are right
 *   (the rule the Belgian registry uses), with a made-up name and address;
 * - other numbers are valid only when registered with `POST /_sim/numbers` `{countryCode, vatNumber, name?}`;
 * - a country in `unavailableCountries` (or set with `POST /_sim/unavailable` `{countries:[…]}`) answers
 *   `MS_UNAVAILABLE`, as VIES does when a member state's registry is down;
 * - `delayMs` holds every answer back (timeouts).
 */
export interface VatCheckSimulatorOptions {
  readonly port?: number;
  readonly unavailableCountries?: readonly string[];
  readonly delayMs?: number;
}

export function belgianNumberValid(digits: string): boolean {
  if (!/^[01][0-9]{9}$/.test(digits)) return false;
  return 97 - (Number(digits.slice(0, 8)) % 97) === Number(digits.slice(8));
}

export function startVatCheckSimulator(opts: VatCheckSimulatorOptions = {}) {
  const registered = new Map<string, string>();
  let unavailable = new Set((opts.unavailableCountries ?? []).map((c) => c.toUpperCase()));
  let delayMs = opts.delayMs ?? 0;
  const requests: { countryCode: string; vatNumber: string }[] = [];
  const json = (status: number, body: unknown) => Response.json(body, { status });

  const routes = [
    route('POST', '/check-vat-number', async (req) => {
      const b = await jsonBody(req);
      if (delayMs) await Bun.sleep(delayMs);
      const countryCode = typeof b?.countryCode === 'string' ? b.countryCode.toUpperCase() : '';
      const vatNumber = typeof b?.vatNumber === 'string' ? b.vatNumber : '';
      if (!/^[A-Z]{2}$/.test(countryCode) || !vatNumber) return json(400, { actionSucceed: false, errorWrappers: [{ error: 'INVALID_INPUT' }] });
      requests.push({ countryCode, vatNumber });
      if (unavailable.has(countryCode)) return json(200, { actionSucceed: false, errorWrappers: [{ error: 'MS_UNAVAILABLE' }] });
      const key = `${countryCode}${vatNumber}`;
      const valid = countryCode === 'BE' ? belgianNumberValid(vatNumber) : registered.has(key);
      return json(200, {
        countryCode,
        vatNumber,
        requestDate: new Date().toISOString(),
        valid,
        name: valid ? (registered.get(key) ?? `Company ${vatNumber}`) : '---',
        address: valid ? `Street 1, 1000 City (${countryCode})` : '---',
      });
    }),
    route('POST', '/_sim/numbers', async (req) => {
      const b = await jsonBody(req);
      if (typeof b?.countryCode !== 'string' || typeof b?.vatNumber !== 'string') return json(400, { error: 'countryCode and vatNumber' });
      registered.set(`${b.countryCode.toUpperCase()}${b.vatNumber}`, typeof b.name === 'string' ? b.name : `Company ${b.vatNumber}`);
      return json(200, { ok: true });
    }),
    route('POST', '/_sim/unavailable', async (req) => {
      const b = await jsonBody(req);
      unavailable = new Set(Array.isArray(b?.countries) ? b.countries.filter((c): c is string => typeof c === 'string').map((c) => c.toUpperCase()) : []);
      return json(200, { ok: true });
    }),
    route('POST', '/_sim/delay', async (req) => {
      const b = await jsonBody(req);
      delayMs = typeof b?.ms === 'number' && b.ms >= 0 ? b.ms : 0;
      return json(200, { ok: true });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => json(404, { error: 'not found' })) });
  return {
    url: `http://127.0.0.1:${server.port}`,
    /** Requests received, for tests. */
    requests,
    stop: () => server.stop(true),
  };
}
