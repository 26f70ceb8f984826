import { createFiscalService, fiscalConfigFromEnv, type FiscalService } from '@pos/core/fiscal/index';
import type { ApiDeps } from '../../context.ts';

const built = new WeakMap<ApiDeps, FiscalService>();

/**
 * The fiscal service the register routes sign with: `deps.fiscal` when the API wires one, else one
 * built once per deps from the validated configuration (FISCAL_* variables) and the deps' clock.
 */
export function fiscalServiceOf(deps: ApiDeps): FiscalService {
  const wired = (deps as ApiDeps & { readonly fiscal?: FiscalService }).fiscal;
  if (wired) return wired;
  let service = built.get(deps);
  if (!service) {
    service = createFiscalService(fiscalConfigFromEnv(deps.config), deps.log, { clock: deps.clock });
    built.set(deps, service);
  }
  return service;
}
