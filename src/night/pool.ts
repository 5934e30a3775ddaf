/**
 * Runs lanes on a fixed number of workers (`--concurrency`). A worker takes the next lane in
 * plan order and runs its sources one at a time (P9: the fetcher's site gate is then never
 * contended from inside a lane); it picks the next lane only when its lane is done.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  checkConcurrency(concurrency);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      await run(items[i] as T);
    }
  };
  const n = Math.min(concurrency, items.length);
  await Promise.all(Array.from({ length: n }, worker));
}

/** A pool's size: a positive whole number, or a RangeError (a caller's bug: the CLI checks it). */
export function checkConcurrency(concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
}
