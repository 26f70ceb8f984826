/**
 * Printed width of text on a receipt printer: East Asian wide and full-width characters (CJK, kana,
 * hangul, full-width forms, emoji) take two columns of the paper, others one (PROTOCOLS "printer-a":
 * 48 columns on 80 mm, 32 on 58 mm, counted in columns, not characters).
 */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

/** Columns one character takes: 2 for wide and full-width ones, else 1. */
export function charWidth(ch: string): 1 | 2 {
  const c = ch.codePointAt(0)!;
  if (c < 0x1100) return 1;
  for (const [lo, hi] of WIDE) if (c >= lo && c <= hi) return 2;
  return 1;
}

export const textWidth = (s: string): number => {
  let n = 0;
  for (const ch of s) n += charWidth(ch);
  return n;
};

/** The longest start of `s` that fits in `cols` columns (a wide character never split over the edge). */
export function cutToWidth(s: string, cols: number): string {
  let n = 0;
  let out = '';
  for (const ch of s) {
    const w = charWidth(ch);
    if (n + w > cols) break;
    n += w;
    out += ch;
  }
  return out;
}

/** A text printed as one line: line breaks (CR, LF, NEL, line and paragraph separators) become spaces. */
export const oneLine = (s: string): string => s.replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, ' ');

/**
 * `prefix` then `text` on lines of at most `cols` columns, never cut: word by word, a word longer than a
 * line split where the line ends (a wide character never over the edge). Lines after the first start
 * with as many spaces as `prefix` is wide (at most half the line), so they read as one item under it.
 * Runs of spaces and line breaks in `text` print as one space: indented continuation lines are all a
 * name can add, never a line of its own (a forged TOTAL).
 */
export function wrapToWidth(prefix: string, text: string, cols: number): string[] {
  const pad = ' '.repeat(Math.min(textWidth(prefix), Math.floor(cols / 2)));
  const lines: string[] = [];
  let line = prefix;
  let fresh = true; // nothing of the text on `line` yet
  for (const word of oneLine(text).split(/\s+/).filter(Boolean)) {
    const joined = fresh ? line + word : `${line} ${word}`;
    if (textWidth(joined) <= cols) {
      line = joined;
      fresh = false;
      continue;
    }
    if (!fresh) {
      lines.push(line);
      line = pad;
    }
    let rest = word;
    while (textWidth(line + rest) > cols) {
      // At least one character a line, whatever the room left.
      const head = cutToWidth(rest, cols - textWidth(line)) || [...rest][0]!;
      lines.push(line + head);
      line = pad;
      rest = rest.slice(head.length);
    }
    line += rest;
    fresh = false;
  }
  lines.push(line);
  return lines;
}
