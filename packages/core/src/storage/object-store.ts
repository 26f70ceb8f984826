import { mkdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/**
 * Where files (content images, exports) live. One interface, so an S3-compatible store can take the
 * local-disk one's place in production: keys are opaque `/`-separated strings chosen by the server.
 */
export interface ObjectStore {
  /** Stores the bytes under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes under `key`, or null when there are none. */
  get(key: string): Promise<Uint8Array | null>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9_\-/.]{0,250}$/i;

/** Local-disk store for development and tests: one file per key under `root` (written atomically). */
export class LocalDiskObjectStore implements ObjectStore {
  private readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid object key ${JSON.stringify(key)}`);
    const p = resolve(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error('Object key escapes the store');
    return p;
  }

  async put(key: string, bytes: Uint8Array, _contentType?: string): Promise<void> {
    const p = this.pathOf(key);
    await mkdir(dirname(p), { recursive: true });
    const tmp = `${p}.${crypto.randomUUID()}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, p);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.pathOf(key)));
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}

/** The store named by the environment: `OBJECT_STORE_DIR` (default `.data/objects` under `cwd`). */
export function objectStoreFromEnv(env: { OBJECT_STORE_DIR?: string }, cwd: string): ObjectStore {
  return new LocalDiskObjectStore(env.OBJECT_STORE_DIR ?? join(cwd, '.data', 'objects'));
}

/** Image types accepted as content, recognised by their first bytes (never by the declared type). */
export type ImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export function sniffImage(b: Uint8Array): ImageType | null {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (b.length >= 3 && at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (b.length >= 8 && at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (b.length >= 6 && (at(0, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || at(0, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61))) return 'image/gif';
  if (b.length >= 12 && at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}
