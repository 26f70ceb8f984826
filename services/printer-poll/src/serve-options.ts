import { MAX_POLL_BODY_BYTES } from './routes/printer-a-sdp.ts';

/**
 * Bun.serve options of the poll service. The server refuses a body over the poll limit while it
 * arrives: without it Bun takes up to 128 MB per request and Elysia buffers all of it before the
 * route's own 413, from anyone, token or not. `development: false`: Bun's development error page
 * (stack frames, source) is never an answer.
 */
export const pollServeOptions = {
  development: false,
  maxRequestBodySize: MAX_POLL_BODY_BYTES,
  error: () => new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } }),
} as const;
