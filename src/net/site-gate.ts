/**
 * P9 inside one process: requests to one site queue here, one after another, so a process
 * never competes with itself for its site's lease. Across processes the journal decides
 * (admission, src/policy/admission.ts); this queue only saves them from polling each other.
 */
export class SiteQueue {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(site: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(site) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(site, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(site) === tail) this.#tails.delete(site);
    }
  }
}
