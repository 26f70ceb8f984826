import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, clientAddressFor } from '../support/test.ts';
import { RegisterClient } from '../support/register-client.ts';

/**
 * Spec 2 section 8: a 5xx is transient (retry with backoff) and never offline evidence. A real
 * local HTTP server answers 503 twice, then 200; the client retries and stays online.
 */
test('a 5xx is retried with backoff and is not treated as offline', async ({ playwright }) => {
  let calls = 0;
  const server: Server = createServer((_req, res) => {
    calls++;
    if (calls <= 2) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'An unexpected error occurred' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ business_date: '2026-11-21' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const ctx = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${port}`, extraHTTPHeaders: { 'x-forwarded-for': clientAddressFor(test.info().testId) } });
  const client = new RegisterClient(ctx, 'key');
  client.deviceToken = 'device';
  client.staffToken = 'staff';
  const res = await client.send('GET', '/pos/business-day');
  expect(res.status()).toBe(200);
  expect(calls).toBe(3);
  expect(client.transientRetries).toBe(2);
  expect(client.lost).toBeNull();
  expect(client.staffToken).toBe('staff');
  expect(client.deviceToken).toBe('device');
  await ctx.dispose();
  server.close();
});
