import { timingSafeEqual } from 'node:crypto';
import { canonicalJson, generateSeedHex, MemoryCounterStore, SoftwareSigner, VAT_RATES, type EventLabel, type EventOperation, type FdmOperation, type VatLabel } from '@pos/fiscal';
import { fdmAuthorization } from './fdm-client.ts';
import { asObject, InvalidRequest, validateCommon, validateMoneyInOut, validateOrder, validateReportZ, validateSale, validateTurnover, validateUserX } from './fdm-validate.ts';

// A fiscal data module over real HTTP for tests, e2e and dev. It signs the wire input it received
// with an in-process SoftwareSigner. Simulator assumption (not from the vendor): re-sending an
// identical request (same operation, training flag and data) replays the first answer without
// counting again, so a recovery job can safely retry after a lost response.

export interface FdmSimulatorOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly hostname?: string;
  readonly sharedSecret: string;
  readonly deviceId: string;
  readonly fdmId?: string;
  /** Ed25519 seed (64 hex); random when absent. */
  readonly seedHex?: string;
  readonly clock?: () => Date;
}

export interface FdmSimulator {
  /** Base URL; the client appends `/{deviceId}/graphql`. */
  readonly url: string;
  /** Events signed (replays not counted). */
  readonly signedCount: number;
  readonly publicKeyPem: string;
  /** The next `n` requests answer 503 before doing anything. */
  simulateOutage(n: number): void;
  /** The next `n` valid requests are signed and counted, then answered 503 (a lost response). */
  simulateLostResponse(n: number): void;
  stop(): Promise<void>;
}

const MAX_SKEW_MS = 5 * 60 * 1000;
const FDM_SW_VERSION = 'sim-1.0.0';

const OPERATIONS: Readonly<Record<FdmOperation, { label: EventLabel; operation: EventOperation }>> = {
  signSale: { label: 'N', operation: 'SALE' },
  signOrder: { label: 'N', operation: 'ORDER' },
  signMoneyInOut: { label: 'F', operation: 'MONEY_IN_OUT' },
  signDrawerOpen: { label: 'F', operation: 'DRAWER_OPEN' },
  signWorkIn: { label: 'S', operation: 'WORK_IN' },
  signWorkOut: { label: 'S', operation: 'WORK_OUT' },
  signReportTurnoverX: { label: 'R', operation: 'REPORT_TURNOVER_X' },
  signReportUserX: { label: 'R', operation: 'REPORT_USER_X' },
  signReportTurnoverZ: { label: 'R', operation: 'REPORT_TURNOVER_Z' },
};

function isOperation(s: string): s is FdmOperation {
  return Object.hasOwn(OPERATIONS, s);
}

function gqlError(status: number, code: string, subCode: string, message: string): Response {
  return Response.json({ data: null, errors: [{ message, extensions: { code, subCode } }] }, { status });
}

function validate(op: FdmOperation, data: Record<string, unknown>): void {
  validateCommon(data);
  switch (op) {
    case 'signSale':
      return validateSale(data);
    case 'signOrder':
      return validateOrder(data);
    case 'signMoneyInOut':
      return validateMoneyInOut(data);
    case 'signReportTurnoverX':
      return validateTurnover(data.turnover, 'turnover');
    case 'signReportUserX':
      return validateUserX(data);
    case 'signReportTurnoverZ':
      return validateReportZ(data);
    case 'signDrawerOpen':
    case 'signWorkIn':
    case 'signWorkOut':
      return;
  }
}

/** VAT per label from the sale lines, computed in cents and answered in major units. */
function vatCalc(data: Record<string, unknown>) {
  const totals = new Map<string, number>();
  const lines = (data.transaction as { transactionLines: { mainProduct: { vats: { label: string; price: number }[] } }[] }).transactionLines;
  for (const l of lines) for (const v of l.mainProduct.vats) totals.set(v.label, (totals.get(v.label) ?? 0) + Math.round(v.price * 100));
  return [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([label, total]) => {
    const rate = VAT_RATES[label as VatLabel] ?? 0;
    const taxable = Math.round((total * 100) / (100 + rate));
    return { label, rate, taxableAmount: taxable / 100, vatAmount: (total - taxable) / 100, totalAmount: total / 100, outOfScope: label === 'X' };
  });
}

/** Starts a simulated fiscal data module on a real HTTP port. */
export function startFdmSimulator(options: FdmSimulatorOptions): FdmSimulator {
  const clock = options.clock ?? (() => new Date());
  const counters = new MemoryCounterStore();
  const replies = new Map<string, unknown>();
  let signed = 0;
  let outages = 0;
  let lost = 0;
  const path = `/${encodeURIComponent(options.deviceId)}/graphql`;

  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== path || req.method !== 'POST') return new Response('Not found', { status: 404 });
      if (outages > 0) {
        outages--;
        return new Response('Service unavailable', { status: 503 });
      }
      const body = await req.text();
      const date = req.headers.get('date') ?? '';
      const at = Date.parse(date);
      if (Number.isNaN(at)) return gqlError(401, 'UNAUTHORIZED', 'Date', 'Missing or invalid Date header');
      if (Math.abs(clock().getTime() - at) > MAX_SKEW_MS) return gqlError(401, 'UNAUTHORIZED', 'Date', 'Date header is more than 5 minutes off');
      const expected = Buffer.from(fdmAuthorization(date, options.sharedSecret, body));
      const given = Buffer.from(req.headers.get('authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return gqlError(401, 'UNAUTHORIZED', 'Authorization', 'Authorization does not match');
      }
      try {
        return await handle(body);
      } catch (err) {
        if (err instanceof InvalidRequest) return gqlError(200, 'INVALID_REQUEST', err.subCode, err.message);
        throw err;
      }
    },
  });

  // Created after the server because the verification URL needs its port; requests cannot
  // arrive before this synchronous setup ends.
  const signer = new SoftwareSigner({
    fdmId: options.fdmId ?? `SIM-${options.deviceId}`,
    seedHex: options.seedHex ?? generateSeedHex(),
    verificationBaseUrl: `http://${server.hostname}:${server.port}/verify`,
    clock,
    counters,
  });

  async function handle(body: string): Promise<Response> {
    let request: Record<string, unknown>;
    try {
      request = asObject(JSON.parse(body), 'body');
    } catch {
      throw new InvalidRequest('body', 'Body is not a GraphQL JSON request');
    }
    const named = typeof request.operationName === 'string' ? request.operationName : /\{\s*(sign\w+)\s*\(/.exec(String(request.query ?? ''))?.[1];
    if (!named || !isOperation(named)) throw new InvalidRequest('operationName', `Unknown operation ${named ?? ''}`);
    const op = named;
    const variables = asObject(request.variables, 'variables');
    if (typeof variables.isTraining !== 'boolean') throw new InvalidRequest('isTraining');
    const isTraining = variables.isTraining;
    const data = asObject(variables.data, 'data');
    validate(op, data);

    const key = canonicalJson({ op, isTraining, data });
    let reply = replies.get(key);
    if (!reply) {
      const meta = OPERATIONS[op];
      const label: EventLabel = isTraining ? 'T' : meta.label;
      const ticket = op === 'signSale';
      const result = signer.signPayload({ operation: op, isTraining, data }, { label, operation: meta.operation, ticket }, counters.next(label));
      signed++;
      reply = {
        posId: data.posId,
        posFiscalTicketNo: data.posFiscalTicketNo,
        posDateTime: data.posDateTime,
        terminalId: data.terminalId,
        deviceId: data.deviceId,
        eventOperation: result.eventOperation,
        fdmRef: result.fdmRef,
        fdmSwVersion: FDM_SW_VERSION,
        digitalSignature: result.digitalSignature,
        shortSignature: result.shortSignature ?? null,
        verificationUrl: result.verificationUrl ?? null,
        vatCalc: ticket ? vatCalc(data) : [],
        bufferCapacityUsed: 0,
        warnings: [],
        informations: [],
        footer: isTraining ? ['TRAINING - NOT A FISCAL TICKET'] : [],
      };
      replies.set(key, reply);
      if (lost > 0) {
        lost--;
        return new Response('Service unavailable', { status: 503 });
      }
    }
    return Response.json({ data: { [op]: reply } });
  }

  return {
    url: `http://${server.hostname}:${server.port}`,
    get signedCount() {
      return signed;
    },
    publicKeyPem: signer.publicKeyPem,
    simulateOutage(n: number) {
      outages = n;
    },
    simulateLostResponse(n: number) {
      lost = n;
    },
    async stop() {
      await server.stop(true);
    },
  };
}
