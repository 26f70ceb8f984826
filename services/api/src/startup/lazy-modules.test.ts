import { expect, test } from 'bun:test';
import { join } from 'node:path';

/**
 * Rarely used heavy libraries are loaded on first use, not when the API starts: together they held
 * about 20 MB of the API's idle resident memory (docs/performance.md, "Hostile-input memory").
 * Checked in a process of its own, so modules other test files load do not count.
 */
test('the API loads no spreadsheet, PDF or QR library, and only the English country names, at start', async () => {
  const src = join(import.meta.dir, '..');
  const script = `
    await import(${JSON.stringify(join(src, 'app.ts'))});
    await import(${JSON.stringify(join(src, 'deps.ts'))});
    console.log(JSON.stringify(Object.keys(require.cache)));
  `;
  const proc = Bun.spawn(['bun', '-e', script], { stdout: 'pipe', stderr: 'inherit' });
  const loaded = JSON.parse((await new Response(proc.stdout).text()).trim().split('\n').at(-1)!) as string[];
  expect(await proc.exited).toBe(0);
  // Sanity: the module list is the API's (Elysia and the routes are in it).
  expect(loaded.some((m) => m.includes('/node_modules/elysia/'))).toBe(true);
  const heavy = loaded.filter((m) => /\/node_modules\/(exceljs|pdf-lib|qrcode)\//.test(m));
  expect(heavy).toEqual([]);
  const locales = loaded.filter((m) => /\/i18n-iso-countries\/langs\//.test(m)).map((m) => m.split('/').at(-1));
  expect(locales).toEqual(['en.json']);
});
