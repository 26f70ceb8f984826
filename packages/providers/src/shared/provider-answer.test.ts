import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ProviderError, readAnswerText, readJson } from './provider-error.ts';

/** A real HTTP server: answers of a given size, with a declared length or streamed without one. */
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const url = new URL(req.url);
      const size = Number(url.searchParams.get('size'));
      const chunk = new TextEncoder().encode('x'.repeat(256));
      if (url.pathname === '/declared') return new Response('x'.repeat(size));
      if (url.pathname === '/json') return Response.json({ ok: true });
      // Streamed: no content-length, 256 bytes at a time, forever unless the reader stops.
      let sent = 0;
      return new Response(
        new ReadableStream({
          pull(c) {
            if (size && sent >= size) return c.close();
            c.enqueue(chunk);
            sent += chunk.byteLength;
          },
        }),
      );
    },
  });
});
afterAll(() => server.stop(true));

const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a refusal');
};

test('an answer within the limit is read whole', async () => {
  expect(await readAnswerText('register-b', await get('/declared?size=1000'), 1024)).toHaveLength(1000);
  expect(await readJson('register-b', await get('/json'))).toEqual({ ok: true });
});

test('an answer declaring more than the limit is refused before its body is read', async () => {
  const e = await refusal(readAnswerText('register-b', await get('/declared?size=5000'), 1024));
  expect(e).toBeInstanceOf(ProviderError);
  expect(e).toMatchObject({ kind: 'invalid_response', message: 'register-b: answer larger than 1024 bytes (HTTP 200)' });
});

test('a streamed answer without a length is cut off once it passes the limit (an endless one too)', async () => {
  for (const path of ['/stream?size=4096', '/stream?size=0']) {
    const e = await refusal(readAnswerText('delivery-a', await get(path), 1024));
    expect(e).toMatchObject({ kind: 'invalid_response', message: 'delivery-a: answer larger than 1024 bytes (HTTP 200)' });
  }
});
