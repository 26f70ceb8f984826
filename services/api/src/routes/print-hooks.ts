import type { ApiDeps } from '../context.ts';

/**
 * Prints queued after a register event (issue 15 point 6): the event has committed and answered
 * for itself; a printing failure is logged and never turns the sale, refund or report into an error.
 */
export async function afterCommit(deps: Pick<ApiDeps, 'log'>, what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (e) {
    deps.log.error('print job not queued', { what, err: e });
  }
}
