import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

/** The logger as a process: JSON lines on stderr, nothing on stdout, credentials redacted. */
const script = `
import { createLogger } from ${JSON.stringify(join(import.meta.dir, 'logger.ts'))};
const log = createLogger({ service: 'probe' });
log.info('login', { pin: '1234', token: 'tok-abc', headers: { authorization: 'Bearer xyz', 'x-client-api-key': 'key-1', accept: 'json' }, user: 'marie' });
log.child({ component: 'fiscal' }).error('failed', { err: new Error('boom'), shared_secret: 's3cret' });
log.debug('hidden');
`;

describe('logger', () => {
  test('writes JSON lines to stderr with level, time and message, and redacts tokens, PINs and secrets', () => {
    const r = Bun.spawnSync(['bun', '-e', script], { env: { ...process.env, LOG_LEVEL: 'info' } });
    expect(r.stdout.toString()).toBe('');
    const lines = r.stderr.toString().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'login', service: 'probe', pin: '[redacted]', token: '[redacted]', user: 'marie' });
    expect(lines[0].headers).toEqual({ authorization: '[redacted]', 'x-client-api-key': '[redacted]', accept: 'json' });
    expect(typeof lines[0].t).toBe('string');
    expect(lines[1]).toMatchObject({ level: 'error', msg: 'failed', component: 'fiscal', shared_secret: '[redacted]', err: { message: 'boom' } });
    const text = r.stderr.toString();
    for (const secret of ['1234', 'tok-abc', 'xyz', 'key-1', 's3cret']) expect(text).not.toContain(secret);
  });
});
