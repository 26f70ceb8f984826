import { afterAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { VatCheckClient } from './vat-check/vat-check-client.ts';
import { GeocodingClient } from './geocoding/geocoding-client.ts';

// The standalone VAT check and geocoding simulator processes that `bun run dev` starts.
const procs: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
});

async function start(entry: string, env: Record<string, string>): Promise<string> {
  const p = Bun.spawn([process.execPath, join(import.meta.dir, entry)], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' });
  procs.push(p);
  const reader = p.stdout.getReader();
  let text = '';
  while (!/listening on (http:\/\/\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${entry} exited: ${text}`);
    text += new TextDecoder().decode(value);
  }
  return /listening on (http:\/\/\S+)/.exec(text)![1]!;
}

test('the vat-check and geocoding simulators start from their environment and answer their clients', async () => {
  const vat = await start('vat-check/main.ts', { VAT_CHECK_SIM_PORT: '0', VAT_CHECK_SIM_UNAVAILABLE: 'FR' });
  const vc = new VatCheckClient({ baseUrl: vat });
  expect(await vc.check('BE', '0123456749')).toEqual({ result: 'valid', name: 'Company 0123456749', address: 'Street 1, 1000 City (BE)' });
  expect(await vc.check('BE', '0123456789')).toEqual({ result: 'invalid' });
  expect(await vc.check('FR', '12345678901')).toEqual({ result: 'unavailable', reason: 'MS_UNAVAILABLE' });
  expect((await fetch(`${vat}/_sim/ping`)).status).toBe(200);

  const geo = await start('geocoding/main.ts', { GEOCODING_SIM_PORT: '0', GEOCODING_API_KEY: 'geo-sim-key-0123' });
  const found = await new GeocodingClient({ baseUrl: geo, apiKey: 'geo-sim-key-0123' }).autocomplete('veldstraat', { country: 'BE' });
  expect(found).toEqual([{ id: 'adr_veldstraat_20', label: 'Veldstraat 20, 9000 Gent, BE', street: 'Veldstraat 20', postal_code: '9000', city: 'Gent', country: 'BE', lat: 51.0517, lng: 3.7219 }]);
}, 30_000);
