/**
 * Generation provider client (text and image generation). `POST {base}/v1/descriptions`
 * `{name, keywords[], language, tone}` answers `{description}`; `POST {base}/v1/images` `{prompt}`
 * answers `{image_base64, mime_type}` (a PNG). `Authorization: Bearer <key>`. Any failure throws
 * `GenerationUnavailable`, so callers can refund and answer 503.
 */
export interface GenerationConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs?: number;
}

export class GenerationUnavailable extends Error {
  constructor(detail: string) {
    super(`generation: ${detail}`);
    this.name = 'GenerationUnavailable';
  }
}

export interface DescriptionRequest {
  name: string;
  keywords: string[];
  language: string;
  tone: string;
}

export class GenerationClient {
  private readonly base: string;
  constructor(private readonly config: GenerationConfig) {
    this.base = config.baseUrl.replace(/\/+$/, '');
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.config.apiKey}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 30_000),
      });
    } catch (e) {
      throw new GenerationUnavailable(e instanceof Error ? e.message : String(e));
    }
    if (!res.ok) throw new GenerationUnavailable(`HTTP ${res.status}`);
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!json || typeof json !== 'object') throw new GenerationUnavailable('unreadable answer');
    return json;
  }

  async describe(req: DescriptionRequest): Promise<string> {
    const b = await this.post('/v1/descriptions', req);
    if (typeof b.description !== 'string' || !b.description.trim()) throw new GenerationUnavailable('unreadable answer');
    return b.description;
  }

  /** The generated image's bytes; only PNG is accepted (checked by signature). */
  async image(prompt: string): Promise<Uint8Array> {
    const b = await this.post('/v1/images', { prompt });
    if (typeof b.image_base64 !== 'string' || b.mime_type !== 'image/png') throw new GenerationUnavailable('unreadable answer');
    const bytes = new Uint8Array(Buffer.from(b.image_base64, 'base64'));
    if (!isPng(bytes)) throw new GenerationUnavailable('not a PNG');
    return bytes;
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length > 8 && PNG_SIGNATURE.every((v, i) => bytes[i] === v);
}
