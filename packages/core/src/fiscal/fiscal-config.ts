import { ConfigError } from '@pos/kernel';

/**
 * What the fiscal service needs, built once from configuration (never from the environment deep
 * inside): see `fiscalConfigFromEnv`.
 */
export interface FiscalConfig {
  /** Derives each software-mode device's Ed25519 seed: HKDF-SHA256(masterKey, salt = '', info = fdm id), 32 bytes. */
  readonly masterKey: string;
  /** Optional dedicated key material of the journal seals; default: derived from `masterKey` (`deriveSealKey`). */
  readonly sealKey?: string;
  /** fdm id -> 64-hex Ed25519 seed; wins over the derived key for that device. */
  readonly signingKeys?: Readonly<Record<string, string>>;
  /** Base of the verification URL the in-process signer issues for sales and refunds. */
  readonly verificationBaseUrl: string;
  /** Remote fiscal data modules: `{baseUrl}/{fdmId}/graphql`, one shared secret per device. */
  readonly remote?: {
    readonly baseUrl: string;
    readonly secrets: Readonly<Record<string, string>>;
    /** Per request; default 15 s (the client's default). */
    readonly timeoutMs?: number;
  };
  /** `posSwVersion` on every event; default the version of @pos/core. */
  readonly posSwVersion?: string;
}

/** The variables `fiscalConfigFromEnv` reads (`ApiEnv` declares them). */
export interface FiscalEnv {
  readonly FISCAL_MASTER_KEY: string;
  readonly FISCAL_SEAL_KEY?: string | undefined;
  readonly FISCAL_SIGNING_KEYS?: string | undefined;
  readonly FISCAL_VERIFICATION_URL?: string | undefined;
  readonly FDM_REMOTE_URL?: string | undefined;
  readonly FDM_REMOTE_SECRETS?: string | undefined;
}

/** Used when FISCAL_VERIFICATION_URL is unset: a reserved domain, so no one mistakes it for the authority's. */
export const DEFAULT_VERIFICATION_URL = 'https://fdm.invalid/verify';

const SEED_HEX = /^[0-9a-fA-F]{64}$/;

function jsonObjectOfStrings(variable: string, text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(variable, 'is invalid (not JSON)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(variable, 'is invalid (expected a JSON object)');
  // No prototype: looked up by module ids chosen in the back office.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string' || v === '') throw new ConfigError(variable, `is invalid (value of "${k}" must be a non-empty string)`);
    out[k] = v;
  }
  return out;
}

function httpUrl(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, 'is invalid (not a URL)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(variable, 'is invalid (expected an http or https URL)');
  return text;
}

/**
 * Parses the fiscal variables (already checked for presence by `readEnv(ApiEnv)`). Pure: a bad
 * value throws a ConfigError naming the variable (bad JSON, a seed that is not 64 hex digits, a
 * URL that does not parse, secrets without a remote URL).
 */
export function fiscalConfigFromEnv(env: FiscalEnv): FiscalConfig {
  if (typeof env.FISCAL_MASTER_KEY !== 'string' || env.FISCAL_MASTER_KEY.length < 32) {
    throw new ConfigError('FISCAL_MASTER_KEY', env.FISCAL_MASTER_KEY ? 'is invalid (at least 32 characters)' : 'is required');
  }
  if (env.FISCAL_SEAL_KEY !== undefined && env.FISCAL_SEAL_KEY !== '' && env.FISCAL_SEAL_KEY.length < 32) {
    throw new ConfigError('FISCAL_SEAL_KEY', 'is invalid (at least 32 characters)');
  }
  let signingKeys: Record<string, string> | undefined;
  if (env.FISCAL_SIGNING_KEYS) {
    signingKeys = jsonObjectOfStrings('FISCAL_SIGNING_KEYS', env.FISCAL_SIGNING_KEYS);
    for (const [fdmId, seed] of Object.entries(signingKeys)) {
      if (!SEED_HEX.test(seed)) throw new ConfigError('FISCAL_SIGNING_KEYS', `is invalid (seed of "${fdmId}" must be 64 hex digits)`);
    }
  }
  const verificationBaseUrl = env.FISCAL_VERIFICATION_URL ? httpUrl('FISCAL_VERIFICATION_URL', env.FISCAL_VERIFICATION_URL) : DEFAULT_VERIFICATION_URL;
  let remote: FiscalConfig['remote'];
  if (env.FDM_REMOTE_URL) {
    remote = {
      baseUrl: httpUrl('FDM_REMOTE_URL', env.FDM_REMOTE_URL),
      secrets: env.FDM_REMOTE_SECRETS ? jsonObjectOfStrings('FDM_REMOTE_SECRETS', env.FDM_REMOTE_SECRETS) : {},
    };
  } else if (env.FDM_REMOTE_SECRETS) {
    throw new ConfigError('FDM_REMOTE_URL', 'is required when FDM_REMOTE_SECRETS is set');
  }
  return {
    masterKey: env.FISCAL_MASTER_KEY,
    ...(env.FISCAL_SEAL_KEY ? { sealKey: env.FISCAL_SEAL_KEY } : {}),
    ...(signingKeys ? { signingKeys } : {}),
    verificationBaseUrl,
    ...(remote ? { remote } : {}),
  };
}
