import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskObjectStore, sniffImage } from './object-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'objects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LocalDiskObjectStore', () => {
  const store = new LocalDiskObjectStore(dir);
  test('put, get, replace, delete', async () => {
    await store.put('t_a/contents/x.png', new Uint8Array([1, 2, 3]), 'image/png');
    expect(await store.get('t_a/contents/x.png')).toEqual(new Uint8Array([1, 2, 3]));
    await store.put('t_a/contents/x.png', new Uint8Array([4]), 'image/png');
    expect(await store.get('t_a/contents/x.png')).toEqual(new Uint8Array([4]));
    await store.delete('t_a/contents/x.png');
    expect(await store.get('t_a/contents/x.png')).toBeNull();
    await store.delete('t_a/contents/x.png');
  });
  test('keys cannot leave the store', async () => {
    await expect(store.put('../escape', new Uint8Array([1]), 'x')).rejects.toThrow();
    await expect(store.get('/etc/passwd')).rejects.toThrow();
    await expect(store.put('a/../../b', new Uint8Array([1]), 'x')).rejects.toThrow();
  });
});

describe('sniffImage', () => {
  test('magic bytes, not names', () => {
    expect(sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(sniffImage(new TextEncoder().encode('GIF89a...'))).toBe('image/gif');
    expect(sniffImage(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImage(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImage(new TextEncoder().encode('%PDF-1.7'))).toBeNull();
    expect(sniffImage(new Uint8Array([]))).toBeNull();
  });
});
