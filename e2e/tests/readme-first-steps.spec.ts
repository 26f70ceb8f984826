import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../support/test.ts';
import { E2E, apiUrl } from '../support/stack-env.ts';

// The README's "First steps" block, run as a newcomer would paste it (bash, curl, jq), against this
// stack: only the API address differs from what the README says.

const root = fileURLToPath(new URL('../..', import.meta.url));

function firstStepsBlock(): string {
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## First steps'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README has no first-steps shell block');
  return block;
}

function stackDatabaseUrl(): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${process.env.E2E_DATABASE ?? 'ordering_e2e'}`;
  return url.toString();
}

test('the README first steps work when pasted: sign in, activate, PIN login, order, settle', () => {
  const block = firstStepsBlock();
  expect(block).toContain('API=http://localhost:3000/api');
  const script = block.replace('API=http://localhost:3000/api', `API=${apiUrl('/api')}`);
  try {
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', DATABASE_URL: stackDatabaseUrl(), DEVICE_API_KEY: E2E.env.DEVICE_API_KEY, PIN_PEPPER: E2E.env.PIN_PEPPER },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toContain('"type": "pos"'); // the back office listed the devices
    expect(out).toMatch(/"state": "OPEN",\s*"version": 1/);
    expect(out).toMatch(/"state": "SETTLED",\s*"tender": \{\s*"amount_tendered": 2000,\s*"change": \d+/);
    expect(out).toMatch(/"short_signature": "[A-Z2-7]{8}"/);
  } finally {
    rmSync(`${root}/seed.json`, { force: true });
  }
});
