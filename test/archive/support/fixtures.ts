/** Helpers shared by the archive tests: a temp store, and exchanges as the fetcher hands them. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../../src/clock.js";
import { CounterIds } from "../../../src/ids.js";
import type { Exchange } from "../../../src/store/archive/records.js";
import type { WarcArchiveOptions } from "../../../src/store/archive/warc-archive.js";
import { openStore, type Store } from "../../../src/store/db.js";

export interface TempStore {
  dataDir: string;
  archiveDir: string;
  store: Store;
  /** The store, a virtual clock and counted record ids: one of each for every archive opened. */
  archiveOptions: WarcArchiveOptions;
  cleanup(): Promise<void>;
}

export async function tempStore(): Promise<TempStore> {
  const dataDir = mkdtempSync(join(tmpdir(), "nor-archive-"));
  const store = await openStore({ kind: "sqlite", dir: dataDir });
  return {
    dataDir,
    archiveDir: join(dataDir, "archive"),
    store,
    archiveOptions: { db: store.db, clock: new ManualClock(), ids: new CounterIds() },
    cleanup: async () => {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function exchange(
  url: string,
  body: string | Uint8Array,
  opts: {
    status?: number;
    headers?: Record<string, string>;
    at?: number;
    source?: string;
    purpose?: Exchange["purpose"];
  } = {},
): Exchange {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const ex: Exchange = {
    request: {
      method: "GET",
      url,
      headers: { "user-agent": "public-records-check/0.1 (+mailto:frankie@outpostagencies.com)" },
    },
    response: {
      status: opts.status ?? 200,
      headers: { "content-type": "text/html; charset=utf-8", ...opts.headers },
      url,
      body: bytes,
      chain: [url],
    },
    fetchedAt: opts.at ?? Date.UTC(2026, 10, 5, 8, 0, 0),
    purpose: opts.purpose ?? "page",
  };
  if (opts.source !== undefined) ex.source = opts.source;
  return ex;
}
