import { expect } from 'bun:test';
import { compareByLabel, type OptionItem } from './types.ts';

export function expectSortedByLabel(items: readonly OptionItem[]): void {
  for (let i = 1; i < items.length; i++) {
    const prev = items[i - 1];
    const cur = items[i];
    if (prev === undefined || cur === undefined) throw new Error('unreachable');
    expect(compareByLabel(prev, cur)).toBeLessThanOrEqual(0);
  }
}

export function expectUnique(values: readonly string[]): void {
  expect(new Set(values).size).toBe(values.length);
}

export function expectWellFormed(items: readonly OptionItem[]): void {
  for (const item of items) {
    expect(typeof item.value).toBe('string');
    expect(item.value.length).toBeGreaterThan(0);
    expect(typeof item.label).toBe('string');
    expect(item.label.length).toBeGreaterThan(0);
  }
}
