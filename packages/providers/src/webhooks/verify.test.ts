import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'bun:test';
import {
  constantTimeEqual,
  signCardA,
  verifyBasicAuth,
  verifyBearerToken,
  verifyBodyHmac,
  verifyCardASignature,
  verifyUrlBodyHmacBase64,
} from './verify.ts';

/** HMAC-SHA256 computed independently of the code under test (WebCrypto, not node:crypto). */
async function webHmac(key: string, data: string, encoding: 'hex' | 'base64'): Promise<string> {
  const k = await crypto.subtle.importKey('raw', new TextEncoder().encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(data)));
  return encoding === 'hex' ? [...sig].map((b) => b.toString(16).padStart(2, '0')).join('') : btoa(String.fromCharCode(...sig));
}

describe('constantTimeEqual', () => {
  test('equal, different, different lengths, prefix', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('', 'a')).toBe(false);
  });
});

describe('body HMAC-SHA256 (shop-a, delivery-a/b, register-a/b)', () => {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  const RFC4231_HEX = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
  test('RFC 4231 test case 2, hex, with and without the sha256= prefix, any case', () => {
    expect(verifyBodyHmac({ signature: RFC4231_HEX, rawBody: 'what do ya want for nothing?', secret: 'Jefe', encoding: 'hex' })).toEqual({ ok: true });
    expect(verifyBodyHmac({ signature: `sha256=${RFC4231_HEX}`, rawBody: 'what do ya want for nothing?', secret: 'Jefe', encoding: 'hex' })).toEqual({ ok: true });
    expect(verifyBodyHmac({ signature: RFC4231_HEX.toUpperCase(), rawBody: 'what do ya want for nothing?', secret: 'Jefe', encoding: 'hex' })).toEqual({ ok: true });
  });
  test('RFC 4231 test case 2 in base64', () => {
    const b64 = Buffer.from(RFC4231_HEX, 'hex').toString('base64');
    expect(verifyBodyHmac({ signature: b64, rawBody: new TextEncoder().encode('what do ya want for nothing?'), secret: 'Jefe', encoding: 'base64' })).toEqual({ ok: true });
  });
  test('a changed byte, a wrong key, a missing header, an empty secret', async () => {
    const body = '{"id":1,"amount":10.5}';
    const sig = await webHmac('s3cret', body, 'hex');
    expect(verifyBodyHmac({ signature: sig, rawBody: body, secret: 's3cret', encoding: 'hex' })).toEqual({ ok: true });
    // Same JSON value, different bytes: re-serialised JSON never verifies.
    expect(verifyBodyHmac({ signature: sig, rawBody: '{"id": 1,"amount":10.5}', secret: 's3cret', encoding: 'hex' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyBodyHmac({ signature: sig, rawBody: body, secret: 'other', encoding: 'hex' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyBodyHmac({ signature: null, rawBody: body, secret: 's3cret', encoding: 'hex' })).toEqual({ ok: false, reason: 'missing' });
    expect(verifyBodyHmac({ signature: createHmac('sha256', '').update(body).digest('hex'), rawBody: body, secret: '', encoding: 'hex' })).toEqual({ ok: false, reason: 'mismatch' });
  });
});

describe('card-a t=…,v1=… signatures', () => {
  const secret = 'whsec_test_secret';
  const body = '{"id":"evt_1","object":"event","type":"payment_intent.succeeded"}';
  const now = 1_800_000_000;

  test('a header computed independently verifies', async () => {
    const v1 = await webHmac(secret, `${now}.${body}`, 'hex');
    expect(verifyCardASignature({ header: `t=${now},v1=${v1}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: true });
    expect(signCardA(secret, body, now)).toBe(`t=${now},v1=${v1}`);
  });
  test('any v1 may match (secret rotation), other schemes ignored', async () => {
    const v1 = await webHmac(secret, `${now}.${body}`, 'hex');
    const header = `t=${now},v1=${'0'.repeat(64)},v0=abc,v1=${v1}`;
    expect(verifyCardASignature({ header, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: true });
  });
  test('forged, another secret, body changed by one byte', async () => {
    const v1 = await webHmac(secret, `${now}.${body}`, 'hex');
    expect(verifyCardASignature({ header: `t=${now},v1=${'a'.repeat(64)}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCardASignature({ header: `t=${now},v1=${v1}`, rawBody: body, secret: 'whsec_other', nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCardASignature({ header: `t=${now},v1=${v1}`, rawBody: body + ' ', secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    // The timestamp is signed: moving it invalidates the signature.
    expect(verifyCardASignature({ header: `t=${now + 1},v1=${v1}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
  });
  test('300 s tolerance: 300 passes, 301 is stale, whatever the signature', async () => {
    const t = now - 300;
    const ok = await webHmac(secret, `${t}.${body}`, 'hex');
    expect(verifyCardASignature({ header: `t=${t},v1=${ok}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: true });
    const old = now - 301;
    const valid = await webHmac(secret, `${old}.${body}`, 'hex');
    expect(verifyCardASignature({ header: `t=${old},v1=${valid}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'stale' });
  });
  test('missing and malformed headers', () => {
    expect(verifyCardASignature({ header: undefined, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'missing' });
    expect(verifyCardASignature({ header: 'v1=abc', rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyCardASignature({ header: `t=${now}`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyCardASignature({ header: `t=abc,v1=00`, rawBody: body, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('platform-a base64 HMAC over notification URL + body', () => {
  const url = 'https://api.example.test/api/webhook/platform-a';
  const body = '{"type":"terminal.checkout.updated"}';
  test('independent vector verifies; another URL or body does not', async () => {
    const sig = await webHmac('pa-key', url + body, 'base64');
    expect(verifyUrlBodyHmacBase64({ signature: sig, notificationUrl: url, rawBody: body, key: 'pa-key' })).toEqual({ ok: true });
    expect(verifyUrlBodyHmacBase64({ signature: sig, notificationUrl: url + '/', rawBody: body, key: 'pa-key' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyUrlBodyHmacBase64({ signature: sig, notificationUrl: url, rawBody: body + '\n', key: 'pa-key' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyUrlBodyHmacBase64({ signature: '', notificationUrl: url, rawBody: body, key: 'pa-key' })).toEqual({ ok: false, reason: 'missing' });
  });
});

describe('HTTP Basic', () => {
  // RFC 7617 section 2: user "Aladdin", password "open sesame".
  test('RFC 7617 example', () => {
    expect(verifyBasicAuth({ authorization: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', username: 'Aladdin', password: 'open sesame' })).toEqual({ ok: true });
    expect(verifyBasicAuth({ authorization: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', username: 'Aladdin', password: 'open sesame!' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyBasicAuth({ authorization: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', username: 'aladdin', password: 'open sesame' })).toEqual({ ok: false, reason: 'mismatch' });
  });
  test('missing, not Basic, no colon', () => {
    expect(verifyBasicAuth({ authorization: null, username: 'u', password: 'p' })).toEqual({ ok: false, reason: 'missing' });
    expect(verifyBasicAuth({ authorization: 'Bearer abc', username: 'u', password: 'p' })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyBasicAuth({ authorization: `Basic ${btoa('nocolon')}`, username: 'u', password: 'p' })).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('bearer token', () => {
  test('exact token only', () => {
    expect(verifyBearerToken({ authorization: 'Bearer crm-token-123', token: 'crm-token-123' })).toEqual({ ok: true });
    expect(verifyBearerToken({ authorization: 'bearer crm-token-123', token: 'crm-token-123' })).toEqual({ ok: true });
    expect(verifyBearerToken({ authorization: 'Bearer crm-token-12', token: 'crm-token-123' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyBearerToken({ authorization: 'Basic crm-token-123', token: 'crm-token-123' })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyBearerToken({ authorization: undefined, token: 'crm-token-123' })).toEqual({ ok: false, reason: 'missing' });
    expect(verifyBearerToken({ authorization: 'Bearer x', token: '' })).toEqual({ ok: false, reason: 'mismatch' });
  });
});
