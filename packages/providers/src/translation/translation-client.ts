/**
 * Machine translation client (CONTRACTS 6 "translation") in the shape of the DeepL v2 API:
 * `POST {base}/v2/translate` with `{text:[…], target_lang, source_lang?}` and
 * `Authorization: DeepL-Auth-Key <key>`, answering `{translations:[{text, detected_source_language}]}`
 * in the order sent. Throws `TranslationUnavailable` on any failure.
 */
export interface TranslationConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs?: number;
}

export class TranslationUnavailable extends Error {
  constructor(detail: string) {
    super(`translation: ${detail}`);
    this.name = 'TranslationUnavailable';
  }
}

/** Texts per request (DeepL accepts up to 50). */
export const MAX_TEXTS_PER_REQUEST = 50;

export class TranslationClient {
  private readonly base: string;
  constructor(private readonly config: TranslationConfig) {
    this.base = config.baseUrl.replace(/\/+$/, '');
  }

  async translate(texts: readonly string[], target: string, source?: string): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < texts.length; i += MAX_TEXTS_PER_REQUEST) {
      const chunk = texts.slice(i, i + MAX_TEXTS_PER_REQUEST);
      let res: Response;
      try {
        res = await fetch(`${this.base}/v2/translate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `DeepL-Auth-Key ${this.config.apiKey}` },
          body: JSON.stringify({ text: chunk, target_lang: target.toUpperCase(), ...(source ? { source_lang: source.toUpperCase() } : {}) }),
          signal: AbortSignal.timeout(this.config.timeoutMs ?? 15_000),
        });
      } catch (e) {
        throw new TranslationUnavailable(e instanceof Error ? e.message : String(e));
      }
      if (!res.ok) throw new TranslationUnavailable(`HTTP ${res.status}`);
      const body = (await res.json().catch(() => null)) as { translations?: { text?: unknown }[] } | null;
      const got = body?.translations;
      if (!Array.isArray(got) || got.length !== chunk.length || got.some((t) => typeof t?.text !== 'string')) throw new TranslationUnavailable('unreadable answer');
      out.push(...got.map((t) => t.text as string));
    }
    return out;
  }
}
