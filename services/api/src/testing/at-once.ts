/**
 * Concurrency in route tests: the same request (or `n` variants of it) sent at the same moment, and
 * the answers' statuses sorted, to compare with what the requests get one after the other.
 */
export const atOnce = <T>(n: number, send: (i: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, (_, i) => send(i)));

export const sortedStatuses = (answers: readonly { status: number }[]): number[] => answers.map((a) => a.status).sort((a, b) => a - b);
