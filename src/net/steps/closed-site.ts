import { siteOf } from "../../policy/site.js";
import { final, type Step } from "../pipeline.js";

/**
 * P21: the sites that said no tonight, as this process learned them (the journal step, from
 * the rows it completed with a no). Only ever added to within a night: politeness never fails
 * open. The durable truth is the journal's: a no said by another process is found by the
 * site gate's admission, which answers "closed" as well.
 */
export class ClosedSites {
  readonly #closed = new Map<string, string>();

  close(night: string, site: string, reason: string): void {
    const key = `${night} ${site}`;
    if (!this.#closed.has(key)) this.#closed.set(key, reason);
  }

  reason(night: string, site: string): string | undefined {
    return this.#closed.get(`${night} ${site}`);
  }
}

export interface ClosedSiteDeps {
  closed: ClosedSites;
  /** The night this request belongs to (the fetcher's, or tonight's by the clock). */
  night(): string;
}

/**
 * P21: on a no, nothing more goes to that site tonight: not a page, not a robots.txt, not a
 * redirect hop. A site known closed is answered here, before robots.txt or the journal.
 */
export const closedSite =
  (deps: ClosedSiteDeps): Step =>
  (next) =>
  async (call) => {
    const reason = deps.closed.reason(deps.night(), siteOf(call.url));
    if (reason !== undefined) return final({ kind: "site-closed", url: call.url, reason });
    return next(call);
  };
