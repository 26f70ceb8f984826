import { dispatch, route } from '../shared/sim-server.ts';
import type { GeocodedAddress } from './geocoding-client.ts';

/**
 * The geocoding provider over real HTTP (see geocoding-client.ts): a small gazetteer of addresses;
 * autocomplete matches every word of the query (case- and accent-insensitive) in the label, optionally
 * restricted to a country; reverse answers the nearest address within 1 km, else `null`. Bearer key
 * required (401 otherwise); a query shorter than 3 characters answers no results.
 */
export interface GeocodingSimulatorOptions {
  readonly port?: number;
  readonly hostname?: string;
  readonly apiKey: string;
  readonly addresses?: readonly GeocodedAddress[];
}

export interface GeocodingSimulator {
  readonly url: string;
  /** Requests received, for tests. */
  readonly requests: readonly string[];
  stop(): Promise<void>;
}

const a = (id: string, street: string, postal_code: string, city: string, country: string, lat: number, lng: number): GeocodedAddress => ({
  id,
  label: `${street}, ${postal_code} ${city}, ${country}`,
  street,
  postal_code,
  city,
  country,
  lat,
  lng,
});

export const DEFAULT_GAZETTEER: readonly GeocodedAddress[] = [
  a('adr_grote_markt_1', 'Grote Markt 1', '1000', 'Brussel', 'BE', 50.8467, 4.3525),
  a('adr_rue_neuve_10', 'Rue Neuve 10', '1000', 'Bruxelles', 'BE', 50.8522, 4.3559),
  a('adr_meir_50', 'Meir 50', '2000', 'Antwerpen', 'BE', 51.2182, 4.4051),
  a('adr_veldstraat_20', 'Veldstraat 20', '9000', 'Gent', 'BE', 51.0517, 3.7219),
  a('adr_place_saint_lambert_1', 'Place Saint-Lambert 1', '4000', 'Liège', 'BE', 50.6455, 5.5733),
  a('adr_damrak_1', 'Damrak 1', '1012 LG', 'Amsterdam', 'NL', 52.3765, 4.8979),
];

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Distance in metres (haversine). */
export function distanceMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = 6_371_000;
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * r * Math.asin(Math.sqrt(h));
}

export function startGeocodingSimulator(options: GeocodingSimulatorOptions): GeocodingSimulator {
  const book = options.addresses ?? DEFAULT_GAZETTEER;
  const requests: string[] = [];
  const err = (status: number, code: string, message: string) => Response.json({ error: { code, message } }, { status });
  const guard = (h: (url: URL) => Response) => (req: Request, _p: Record<string, string>, url: URL) => {
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    return req.headers.get('authorization') === `Bearer ${options.apiKey}` ? h(url) : err(401, 'unauthorized', 'Invalid API key.');
  };
  const routes = [
    route(
      'GET',
      '/v1/autocomplete',
      guard((url) => {
        const q = fold(url.searchParams.get('q') ?? '').trim();
        const country = url.searchParams.get('country');
        const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 5) || 5, 1), 20);
        if (q.length < 3) return Response.json({ results: [] });
        const words = q.split(/\s+/);
        const results = book.filter((x) => (!country || x.country === country.toUpperCase()) && words.every((w) => fold(x.label).includes(w))).slice(0, limit);
        return Response.json({ results });
      }),
    ),
    route(
      'GET',
      '/v1/reverse',
      guard((url) => {
        const lat = Number(url.searchParams.get('lat'));
        const lng = Number(url.searchParams.get('lng'));
        if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return err(400, 'invalid_coordinates', 'lat and lng must be coordinates.');
        let best: { x: GeocodedAddress; d: number } | null = null;
        for (const x of book) {
          const d = distanceMetres(lat, lng, x.lat, x.lng);
          if (d <= 1000 && (!best || d < best.d)) best = { x, d };
        }
        return Response.json({ result: best?.x ?? null });
      }),
    ),
  ];
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch: (req) => dispatch(routes, req, () => err(404, 'not_found', 'Unknown path.')),
  });
  return {
    url: `http://${server.hostname}:${server.port}`,
    requests,
    stop: async () => {
      await server.stop(true);
    },
  };
}
