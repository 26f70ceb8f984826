import { lastResortResponse } from '../plugins/errors.ts';
import { MAX_BODY_BYTES } from './body-policy.ts';

/**
 * Bun.serve options of the API process. `development: false` in every environment: Bun's
 * development error page shows stack frames, source and paths, and no response may ever be that
 * page. The server refuses bodies over the largest family limit before routing; `error` is the
 * last resort if a failure escapes the error plugin.
 */
export const serveOptions = {
  development: false,
  maxRequestBodySize: MAX_BODY_BYTES,
  error: () => lastResortResponse(),
} as const;
