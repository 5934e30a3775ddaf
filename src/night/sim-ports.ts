/**
 * A request log that only counts, for the simulation and the benchmark: a night of 90,000
 * sources must not measure an array of cloned entries growing. (The other ports come from
 * src/net/memory-ports.ts.)
 */
import type { RequestLogEntry, RequestLogPort } from "../net/types.js";

export class CountingRequestLog implements RequestLogPort {
  count = 0;
  async append(_entry: RequestLogEntry): Promise<void> {
    this.count++;
  }
}
