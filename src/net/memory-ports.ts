import type {
  ArchivePort,
  CachedRobots,
  RequestLogEntry,
  RequestLogPort,
  RobotsCachePort,
  SiteStatePort,
} from "./types.js";

/**
 * In-memory implementations of the fetcher's ports, for unit tests and the night's
 * simulation. They behave like the SQL ones (src/store/*) minus persistence.
 */
export class MemoryRequestLog implements RequestLogPort {
  readonly entries: RequestLogEntry[] = [];
  async append(entry: RequestLogEntry): Promise<void> {
    this.entries.push(structuredClone(entry));
  }
  /** Entries for one URL, in the order written. */
  forUrl(url: string): RequestLogEntry[] {
    return this.entries.filter((e) => e.url === url);
  }
}

export class MemorySiteState implements SiteStatePort {
  readonly ends = new Map<string, number>();
  async lastEnd(site: string): Promise<number | undefined> {
    return this.ends.get(site);
  }
  async setLastEnd(site: string, at: number): Promise<void> {
    // Never move an end backwards: two processes racing must not shorten the gap (P10).
    this.ends.set(site, Math.max(at, this.ends.get(site) ?? Number.NEGATIVE_INFINITY));
  }
}

export class MemoryRobotsCache implements RobotsCachePort {
  readonly entries = new Map<string, CachedRobots>();
  async get(origin: string): Promise<CachedRobots | undefined> {
    const e = this.entries.get(origin);
    return e ? { ...e } : undefined;
  }
  async put(entry: CachedRobots): Promise<void> {
    this.entries.set(entry.origin, { ...entry });
  }
}

type Exchange = Parameters<ArchivePort["write"]>[0];

export class MemoryArchive implements ArchivePort {
  readonly exchanges: Exchange[] = [];
  async write(exchange: Exchange): Promise<void> {
    this.exchanges.push(exchange);
  }
}

/** All four ports at once, for tests. */
export function memoryPorts() {
  return {
    log: new MemoryRequestLog(),
    siteState: new MemorySiteState(),
    robotsCache: new MemoryRobotsCache(),
    archive: new MemoryArchive(),
  };
}
