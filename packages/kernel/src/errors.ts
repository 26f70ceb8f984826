/**
 * The one family of errors use cases throw. The error plugin of the API maps `code` to a status
 * once (see `STATUS_BY_CODE`); the message a client sees is `message`, what is logged may add `cause`.
 */
export type AppErrorCode =
  /** Record absent or of another tenant: 404 `Unable to locate the {model} you requested.` */
  | 'not_found'
  /** No bearer token: 401 `Unauthenticated`. */
  | 'unauthenticated'
  /** Token present but invalid, expired, revoked or mis-signed: 401 `Invalid token`. */
  | 'invalid_token'
  /** Token type differs from the route's, or a permission is missing: 403. */
  | 'forbidden'
  /** Input fails validation: 422 `{message, errors}`. */
  | 'validation'
  /** Malformed payload (e.g. JSON that does not parse): 400. */
  | 'bad_request'
  /** Duplicate, stale version or idempotency conflict: 409. */
  | 'conflict'
  /** A business rule refuses the operation (tender rules, refunds): 422 with `reason`. */
  | 'business_rule'
  /** Request body over its route family's size limit: 413. */
  | 'payload_too_large'
  /** Request body in a media type the route does not read: 415. */
  | 'unsupported_media_type'
  /** Throttle exceeded: 429. */
  | 'throttled'
  /** Kiosk or kds device without an active subscription: 402. */
  | 'payment_required'
  /** A dependency is down (health checks): 503. */
  | 'unavailable';

export const STATUS_BY_CODE: Readonly<Record<AppErrorCode, number>> = {
  not_found: 404,
  unauthenticated: 401,
  invalid_token: 401,
  forbidden: 403,
  validation: 422,
  bad_request: 400,
  conflict: 409,
  business_rule: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  payment_required: 402,
  unavailable: 503,
};

/** Field errors keyed by dot path (`lines.0.qty`). */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  /** Stable machine-readable refusal reason clients branch on (`card_paid`, `stale_version`, ...). */
  reason?: string;
  /** Extra top-level body fields (e.g. `current_version`, `candidates`). */
  extra?: Record<string, unknown>;
  errors?: FieldErrors;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly reason: string | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly errors: FieldErrors | undefined;

  constructor(code: AppErrorCode, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.reason = opts.reason;
    this.extra = opts.extra;
    this.errors = opts.errors;
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }

  /** The JSON body a client sees. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { message: this.message };
    if (this.reason !== undefined) body.reason = this.reason;
    if (this.errors !== undefined) body.errors = this.errors;
    if (this.extra !== undefined) Object.assign(body, this.extra);
    return body;
  }
}

export const MESSAGES = {
  unauthenticated: 'Unauthenticated',
  invalidToken: 'Invalid token',
  invalidUserType: 'Unauthorized: Invalid user type',
  insufficientPermissions: 'Unauthorized: Insufficient permissions',
  unexpected: 'An unexpected error occurred',
  malformedJson: 'Malformed JSON body',
} as const;

/** 422 summary of spec 1 / CONTRACTS 3: "<first error> (and N more errors)", word for word, one more error too. */
export function validationMessage(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const rest = all.length - 1;
  if (rest <= 0) return first;
  return `${first} (and ${rest} more errors)`;
}

export const errors = {
  notFound: (model: string) => new AppError('not_found', `Unable to locate the ${model} you requested.`),
  unauthenticated: () => new AppError('unauthenticated', MESSAGES.unauthenticated),
  invalidToken: () => new AppError('invalid_token', MESSAGES.invalidToken),
  invalidUserType: () => new AppError('forbidden', MESSAGES.invalidUserType),
  insufficientPermissions: () => new AppError('forbidden', MESSAGES.insufficientPermissions),
  forbidden: (message: string, opts?: AppErrorOptions) => new AppError('forbidden', message, opts),
  validation: (errs: FieldErrors) => new AppError('validation', validationMessage(errs), { errors: errs }),
  field: (field: string, text: string) => errors.validation({ [field]: [text] }),
  badRequest: (message: string) => new AppError('bad_request', message),
  conflict: (message: string, opts?: AppErrorOptions) => new AppError('conflict', message, opts),
  businessRule: (message: string, opts?: AppErrorOptions) => new AppError('business_rule', message, opts),
  throttled: () => new AppError('throttled', 'Too Many Attempts.'),
  paymentRequired: () => new AppError('payment_required', 'An active subscription is required for this device.'),
  unavailable: (message: string, opts?: AppErrorOptions) => new AppError('unavailable', message, opts),
};
