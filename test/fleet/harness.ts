import { type Clock, ManualClock, systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher, type FetcherOptions, type PoliteFetcher } from "../../src/net/fetcher.js";
import { memoryPorts } from "../../src/net/memory-ports.js";
import { type Fleet, startFleet } from "./fleet.js";

/**
 * A fleet, a clock and in-memory ports wired to fetchers under test. In virtual time (the
 * default) a ManualClock is stepped whenever the fetcher sleeps, and the fleet stamps
 * requests with the same clock, so a 20 s retry wait or the real 2 s gap costs no wall time
 * while the servers still see exactly the waits the fetcher kept.
 */
export interface Harness {
  fleet: Fleet;
  clock: Clock;
  ports: ReturnType<typeof memoryPorts>;
  fetcher(extra?: Partial<FetcherOptions>): PoliteFetcher;
  close(): Promise<void>;
}

export interface HarnessOptions {
  realTime?: boolean;
  /** Passed to the fetcher; undefined keeps the real 2 s floor (free in virtual time). */
  gapMs?: number;
}

export async function harness(o: HarnessOptions = {}): Promise<Harness> {
  const clock: Clock = o.realTime ? systemClock : new ManualClock();
  const fleet = await startFleet({ now: () => clock.now() });
  const ports = memoryPorts();
  const fetchers: PoliteFetcher[] = [];
  let closed = false;
  const stop = clock instanceof ManualClock ? drive(clock) : () => {};
  return {
    fleet,
    clock,
    ports,
    fetcher(extra = {}) {
      const f = createFetcher({
        clock,
        ids: randomIds,
        ...ports,
        ...(o.gapMs !== undefined ? { gapMs: o.gapMs } : {}),
        ...extra,
        transportOptions: { allowPrivateAddresses: true, ...extra.transportOptions },
      });
      fetchers.push(f);
      return f;
    },
    async close() {
      if (closed) return;
      closed = true;
      stop();
      await Promise.all(fetchers.map((f) => f.close()));
      await fleet.close();
    },
  };
}

/** Steps virtual time whenever someone sleeps and the real world has been quiet a moment. */
export function drive(clock: ManualClock): () => void {
  let running = true;
  const loop = async () => {
    for (let i = 0; running && i < 1_000_000; i++) {
      await new Promise((r) => setTimeout(r, 2));
      if (clock.pending > 0) {
        await new Promise((r) => setTimeout(r, 2));
        if (clock.pending > 0) await clock.step();
      }
    }
  };
  void loop();
  return () => {
    running = false;
  };
}

/**
 * `f.fetch` of the page at `url`, stepping virtual time whenever something sleeps on `clock`
 * (else a real 5 ms turn; 400 turns at most), then `f` closed: its outcome.
 */
export async function fetchStepped(clock: ManualClock, f: PoliteFetcher, url: string) {
  let done = false;
  const pending = f.fetch({ url, purpose: "page" }).finally(() => {
    done = true;
  });
  for (let i = 0; i < 400 && !done; i++) {
    if (clock.pending > 0) await clock.step();
    else await new Promise((r) => setTimeout(r, 5));
  }
  const out = await pending;
  await f.close();
  return out;
}
