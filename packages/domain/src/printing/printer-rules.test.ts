import { describe, expect, test } from 'bun:test';
import { isPlaceholderMac, printJobIdOf, readPrintJobId, readResponseFile } from './printer-rules.ts';

/** The regexes `readResponseFile` used before (quadratic on repeated `<response`): the reference on small inputs. */
function reference(xml: string): { printjobid?: string; success?: boolean; code?: string } {
  const out: { printjobid?: string; success?: boolean; code?: string } = {};
  const job = /<printjobid>([A-Za-z0-9_.-]{1,30})<\/printjobid>/.exec(xml)?.[1];
  if (job !== undefined) out.printjobid = job;
  const success = /<response\b[^>]*\bsuccess="(true|false)"/.exec(xml)?.[1];
  if (success !== undefined) out.success = success === 'true';
  const code = /<response\b[^>]*\bcode="([A-Za-z_]{0,40})"/.exec(xml)?.[1];
  if (code) out.code = code;
  return out;
}

const REPORT = (job: string, attrs: string) =>
  `<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><printjobid>${job}</printjobid></Parameter><PrintResponse><response ${attrs}/></PrintResponse></ePOSPrint></PrintResponseInfo>`;

describe('readResponseFile', () => {
  test('reads job id, success and code of a printer result report', () => {
    expect(readResponseFile(REPORT('J42', 'success="true" code="" status="251658262" battery="0"'))).toEqual({ printjobid: 'J42', success: true });
    expect(readResponseFile(REPORT('J7', 'success="false" code="EPTR_COVER_OPEN" status="0"'))).toEqual({ printjobid: 'J7', success: false, code: 'EPTR_COVER_OPEN' });
    expect(readResponseFile('<response success="false" code="EPTR_COVER_OPEN"/>')).toEqual({ success: false, code: 'EPTR_COVER_OPEN' });
    expect(readResponseFile('')).toEqual({});
  });

  test('follows the former patterns on edge cases: word boundaries, invalid values, the first matching tag, the last attribute in it', () => {
    const cases = [
      '<responses success="true"/>',
      '<response xsuccess="true" code="A"/>',
      '<response success="maybe" success="false"/>',
      '<response success="true" success="false"/>',
      '<response code="AB1" code="OK"/>',
      '<response code="OK" code="AB1"/>',
      '<response code=""/><response code="LATER"/>',
      '<response><x success="true"/>',
      '<response a="1"><response success="false" code="X_Y">',
      '<response\tsuccess="true"',
      '<response success="true',
      `<response code="${'A'.repeat(40)}"/>`,
      `<response code="${'A'.repeat(41)}"/>`,
      '<response-x success="true"/>',
      '<response\nsuccess="false"\ncode="EPTR_AUTOMATICAL"/>',
      '<printjobid>J1</printjobid><printjobid>J2</printjobid>',
      `<printjobid>${'J'.repeat(31)}</printjobid>`,
    ];
    for (const c of cases) expect({ c, r: readResponseFile(c) }).toEqual({ c, r: reference(c) });
  });

  test('agrees with the former patterns on random short documents', () => {
    const parts = ['<response', ' ', '\t', '>', '/>', 'success="', 'true', 'false', '"', 'code="', 'EPTR_X', '1', 'x', '<printjobid>', 'J9', '</printjobid>', '='];
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    for (let i = 0; i < 5000; i++) {
      let doc = '';
      for (let k = rnd(14); k > 0; k--) doc += parts[rnd(parts.length)];
      const got = readResponseFile(doc);
      const want = reference(doc);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect({ doc, got }).toEqual({ doc, got: want });
    }
  });

  test('a 64 KB hostile report (repeated `<response` without `>`) is read in linear time', () => {
    for (const hostile of ['<response\t'.repeat(6400), '<response success="x'.repeat(3200), `<response ${'code="'.repeat(10_000)}`, `${'<response '.repeat(3200)}${'code="A" '.repeat(3200)}`]) {
      expect(hostile.length).toBeGreaterThan(30_000);
      const t0 = performance.now();
      readResponseFile(hostile);
      // The former regexes took ~700 ms on the first; linear work on 64 KB is well under a millisecond
      // (the bound leaves room for a loaded machine).
      expect(performance.now() - t0).toBeLessThan(200);
    }
  });
});

describe('print job ids', () => {
  test('J<seq> names a job; J<seq>.<attempt> one hand-out of it; anything else names nothing', () => {
    expect(printJobIdOf('42')).toBe('J42');
    expect(printJobIdOf('42', 3)).toBe('J42.3');
    expect(readPrintJobId('J42')).toEqual({ seq: '42', attempt: null });
    expect(readPrintJobId('J42.3')).toEqual({ seq: '42', attempt: 3 });
    for (const bad of ['J0', 'J42.0', 'J42.', 'J42.3.1', 'K42', 'J42-3', `J${'9'.repeat(19)}`]) expect(readPrintJobId(bad)).toBeNull();
    // The longest id still fits printjobid's 30 characters.
    expect(printJobIdOf('9'.repeat(18), 999_999_999).length).toBeLessThanOrEqual(30);
  });
});

describe('isPlaceholderMac', () => {
  test('all zeros and broadcast, either separator and any case, are placeholders; real addresses are not', () => {
    for (const mac of ['00:00:00:00:00:00', '00-00-00-00-00-00', 'FF:FF:FF:FF:FF:FF', 'ff-ff-ff-ff-ff-ff', 'Ff:fF:FF:ff:FF:ff']) expect(isPlaceholderMac(mac)).toBe(true);
    for (const mac of ['00:00:00:00:00:01', 'FF:FF:FF:FF:FF:FE', '00:11:62:AA:BB:CC', '01:00:5E:00:00:01']) expect(isPlaceholderMac(mac)).toBe(false);
  });
});
