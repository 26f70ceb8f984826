import { createHash } from 'node:crypto';
import { fdmRequest, type EventLabel, type EventOperation, type FdmSignResponse, type FiscalEvent, type FiscalSigner, type SignResult } from '@pos/fiscal';

/** The module refused the request (a GraphQL error, or any 4xx such as 401 on bad credentials). Not retryable as is. */
export class FdmError extends Error {
  override readonly name = 'FdmError';
  constructor(
    readonly code: string,
    readonly subCode: string | undefined,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * The module could not be reached or gave no usable answer (transport failure, timeout, 5xx).
 * Whether it signed is unknown: keep the journal entry pending and let recovery retry.
 */
export class FdmNetworkError extends Error {
  override readonly name = 'FdmNetworkError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RemoteFdmConfig {
  /** e.g. `https://fdm.example` ; the device path and `/graphql` are appended. */
  readonly baseUrl: string;
  readonly deviceId: string;
  readonly sharedSecret: string;
  readonly fetch?: FetchLike;
  readonly clock?: () => Date;
  /** Default 15 s. */
  readonly timeoutMs?: number;
}

/** `FDM base64(SHA1("POST" + date + sharedSecret + body))`, the raw 20-byte digest base64-encoded. */
export function fdmAuthorization(date: string, sharedSecret: string, body: string): string {
  return `FDM ${createHash('sha1').update(`POST${date}${sharedSecret}${body}`, 'utf8').digest('base64')}`;
}

const LABELS: ReadonlySet<string> = new Set<EventLabel>(['N', 'S', 'R', 'F', 'T']);

interface GraphQlError {
  readonly message?: string;
  readonly extensions?: { readonly code?: string; readonly subCode?: string };
}

/** Client of a remote fiscal data module over its GraphQL API. */
export class RemoteFdmSigner implements FiscalSigner {
  private readonly url: string;
  private readonly doFetch: FetchLike;
  private readonly clock: () => Date;
  private readonly timeoutMs: number;

  constructor(private readonly config: RemoteFdmConfig) {
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(config.deviceId)}/graphql`;
    this.doFetch = config.fetch ?? ((url, init) => fetch(url, init));
    this.clock = config.clock ?? (() => new Date());
    this.timeoutMs = config.timeoutMs ?? 15_000;
  }

  async sign(event: FiscalEvent): Promise<SignResult> {
    return toSignResult(event, await this.signRaw(event));
  }

  /** The module's full answer (VAT calculation, footer, warnings) for receipts and logs. */
  async signRaw(event: FiscalEvent): Promise<FdmSignResponse> {
    const request = fdmRequest(event);
    const body = JSON.stringify(request);
    const date = this.clock().toUTCString();
    let res: Response;
    let json: unknown;
    try {
      res = await this.doFetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', date, authorization: fdmAuthorization(date, this.config.sharedSecret, body) },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      json = await res.json().catch(() => undefined);
    } catch (err) {
      throw new FdmNetworkError(`Fiscal data module unreachable: ${(err as Error).message}`, undefined, { cause: err });
    }
    const payload = json as { data?: Record<string, unknown> | null; errors?: readonly GraphQlError[] } | undefined;
    const first = payload?.errors?.[0];
    if (first) {
      throw new FdmError(first.extensions?.code ?? 'UNKNOWN', first.extensions?.subCode, first.message ?? 'Fiscal data module refused the request', res.status);
    }
    // 408 and 429 say "not now" (a time-out, a throttle), not "never": the same request is retried later.
    if (res.status === 408 || res.status === 429) throw new FdmNetworkError(`Fiscal data module answered HTTP ${res.status}`, res.status);
    if (res.status >= 400 && res.status < 500) throw new FdmError(`HTTP_${res.status}`, undefined, `Fiscal data module answered HTTP ${res.status}`, res.status);
    const result = payload?.data?.[request.operationName];
    if (!res.ok || !result) throw new FdmNetworkError(`Fiscal data module answered HTTP ${res.status} without a result`, res.status);
    return result as FdmSignResponse;
  }
}

/**
 * The module's answer as a signature of `event`. An answer that is not a usable signature of THIS
 * event (no valid fdmRef, or another register's or ticket's echo) is not a refusal: the module may
 * well have counted the event (a garbled or misrouted answer), so it is an unknown outcome
 * (`FdmNetworkError`): the entry stays pending and the same request is sent again later (a module
 * replays an identical request without counting it twice). Taking it for a refusal would undo a
 * sale the module counted.
 */
function toSignResult(event: FiscalEvent, r: FdmSignResponse): SignResult {
  const ref = r?.fdmRef;
  if (!ref || !LABELS.has(ref.eventLabel) || !Number.isSafeInteger(ref.eventCounter) || !Number.isSafeInteger(ref.totalCounter) || typeof r.digitalSignature !== 'string') {
    throw new FdmNetworkError('Fiscal data module answered without a valid fdmRef');
  }
  const echo = r as unknown as Record<string, unknown>;
  for (const field of ['posId', 'posFiscalTicketNo', 'deviceId'] as const) {
    if (echo[field] !== undefined && echo[field] !== null && echo[field] !== event[field]) {
      throw new FdmNetworkError(`Fiscal data module answered for another event (${field} ${String(echo[field])}, sent ${String(event[field])})`);
    }
  }
  return {
    fdmRef: { fdmId: ref.fdmId, fdmDateTime: ref.fdmDateTime, eventLabel: ref.eventLabel as EventLabel, eventCounter: ref.eventCounter, totalCounter: ref.totalCounter },
    digitalSignature: r.digitalSignature,
    ...(r.shortSignature ? { shortSignature: r.shortSignature } : {}),
    ...(r.verificationUrl ? { verificationUrl: r.verificationUrl } : {}),
    eventOperation: r.eventOperation as EventOperation,
  };
}
