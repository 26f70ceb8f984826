import { describe, expect, test } from 'bun:test';
import { Elysia, t } from 'elysia';
import { AppError, createLogger, errors } from '@pos/kernel';
import { errorPlugin } from './errors.ts';

const log = createLogger({}, 'error');
function app(debug: boolean) {
  return new Elysia({ normalize: false })
    .use(errorPlugin({ debug, log }))
    .post('/orders', ({ body }) => body, {
      body: t.Object({ lines: t.Array(t.Object({ qty: t.Integer({ minimum: 1 }) })), table: t.String() }),
    })
    .get('/missing', () => {
      throw errors.notFound('device');
    })
    .get('/boom', () => {
      throw new Error('secret connection string postgres://u:p@h');
    })
    .get('/stale', () => {
      throw errors.conflict('The order has changed since you last saw it.', { reason: 'stale_version', extra: { current_version: 4 } });
    })
    .get('/forbidden', () => {
      throw errors.insufficientPermissions();
    })
    .get('/hostile', () => {
      // An error whose own properties throw when read: building the answer fails.
      throw Object.defineProperty(new Error('x'), 'cause', { get: () => { throw new Error('trap at /work/secret.ts:1'); } });
    })
    .post('/fields', ({ body }) => body, { body: t.Object({ a: t.String() }) })
    .get('/bad-answer', () => ({ price: 150_000 }), { response: { 200: t.Object({ price: t.Integer({ maximum: 100_000 }) }) } })
    .get('/refusal', () => {
      throw errors.businessRule('Card-paid sales cannot be refunded on the POS yet — refund via the payment provider.', { reason: 'card_paid' });
    });
}
const send = async (a: ReturnType<typeof app>, method: string, path: string, body?: string) => {
  const res = await a.handle(new Request(`http://localhost${path}`, { method, body, headers: body ? { 'content-type': 'application/json' } : {} }));
  return { status: res.status, body: (await res.json()) as any };
};

describe('error plugin', () => {
  test('malformed JSON is 400 with the contract message', async () => {
    expect(await send(app(false), 'POST', '/orders', '{"lines": [')).toEqual({ status: 400, body: { message: 'Malformed JSON body' } });
  });

  test('validation failures are 422 with dot-path fields and the generated summary', async () => {
    const r = await send(app(false), 'POST', '/orders', JSON.stringify({ lines: [{ qty: 1 }, { qty: 0 }] }));
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['lines.1.qty', 'table']);
    expect(r.body.errors.table).toEqual(['The table field is required.']);
    expect(r.body.message).toBe(`${r.body.errors[Object.keys(r.body.errors)[0]!][0]} (and 1 more errors)`);
  });

  test('a single validation error has no "and N more" suffix', async () => {
    const r = await send(app(false), 'POST', '/orders', JSON.stringify({ lines: [], table: 5 }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(r.body.errors.table[0]);
  });

  test('an answer failing its own schema is a 500 (our defect, logged), not a 422 the caller would read as its request refused', async () => {
    // Before: 422 {message, errors: {price: [...]}} after the handler had done its work.
    expect(await send(app(false), 'GET', '/bad-answer')).toEqual({ status: 500, body: { message: 'An unexpected error occurred' } });
  });

  test('not found uses the model message', async () => {
    expect(await send(app(false), 'GET', '/missing')).toEqual({ status: 404, body: { message: 'Unable to locate the device you requested.' } });
  });

  test('5xx hides the exception text unless debug is on', async () => {
    expect(await send(app(false), 'GET', '/boom')).toEqual({ status: 500, body: { message: 'An unexpected error occurred' } });
    const dbg = await send(app(true), 'GET', '/boom');
    expect(dbg.status).toBe(500);
    expect(dbg.body.message).toBe('secret connection string postgres://u:p@h');
  });

  test('conflicts carry reason and extra fields; refusals carry reason', async () => {
    expect(await send(app(false), 'GET', '/stale')).toEqual({
      status: 409,
      body: { message: 'The order has changed since you last saw it.', reason: 'stale_version', current_version: 4 },
    });
    expect(await send(app(false), 'GET', '/refusal')).toEqual({
      status: 422,
      body: { message: 'Card-paid sales cannot be refunded on the POS yet — refund via the payment provider.', reason: 'card_paid' },
    });
    expect(await send(app(false), 'GET', '/forbidden')).toEqual({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });

  test('the handler never throws: a failure while answering is the last-resort 500, whatever debug says', async () => {
    for (const debug of [false, true]) {
      expect(await send(app(debug), 'GET', '/hostile')).toEqual({ status: 500, body: { message: 'An unexpected error occurred' } });
    }
  });

  test('fields named like Object.prototype members are ordinary keys of the 422', async () => {
    // (`__proto__` itself never reaches validation in the app: the request guard refuses it first.)
    for (const key of ['toString', 'hasOwnProperty', 'valueOf', 'constructor']) {
      const r = await send(app(false), 'POST', '/fields', `{"a":"x","${key}":1}`);
      expect({ key, status: r.status, fields: Object.keys(r.body.errors ?? {}) }).toEqual({ key, status: 422, fields: [key] });
    }
  });

  test('AppError status table', () => {
    expect(new AppError('payment_required', 'x').status).toBe(402);
    expect(new AppError('throttled', 'x').status).toBe(429);
    expect(new AppError('unavailable', 'x').status).toBe(503);
  });
});
