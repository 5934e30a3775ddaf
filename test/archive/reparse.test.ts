import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractPage } from "../../src/sources/extract/page.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

const guard = fileURLToPath(new URL("./support/no-network.mjs", import.meta.url));
const LIST = `<ul>
  <li class="bid"><a href="/bids/1">Road salt</a> <span>2026-11-01</span></li>
  <li class="bid"><a href="/bids/2">Paving</a> <span>2026-11-02</span></li>
  <li class="bid"><a href="/bids/3">Snow plow</a> <span>2026-11-03</span></li>
</ul>`;
const RECIPE = { items: "li.bid", link: "a", title: "a", date: "span" };

function attempts(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe("nor reparse (P8)", () => {
  let t: TempStore;
  let server: Server;
  let hits = 0;
  let base: string;
  beforeEach(async () => {
    t = await tempStore();
    hits = 0;
    // The source's own server, on loopback: it would see any request reparse made.
    server = createServer((_req, res) => {
      hits += 1;
      res.end(LIST);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.2", r));
    base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    await t.cleanup();
  });

  it("P8: the network guard counts and refuses a real connection (the control)", async () => {
    const counter = join(t.dataDir, "net-attempts");
    const probe = join(t.dataDir, "probe.mjs");
    writeFileSync(probe, `await fetch(${JSON.stringify(`${base}/`)}).catch(() => {});\n`);
    const { spawnSync } = await import("node:child_process");
    spawnSync(process.execPath, ["--import", guard, probe], {
      env: { ...process.env, NOR_NET_GUARD_FILE: counter },
    });
    expect(attempts(counter).length).toBeGreaterThan(0);
    expect(hits).toBe(0);
  });

  it("P8: reparse re-extracts from the stored copies with every connection refused, and reports what it would add / remove / change per source", async () => {
    const url = `${base}/bids`;
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(url, LIST, { source: "city-bids" }));
    await a.write(
      exchange(`${base}/robots.txt`, "User-agent: *\n", { source: "city-bids", purpose: "robots" }),
    );
    await a.close();

    const now = extractPage(new TextEncoder().encode(LIST), url, RECIPE).records;
    expect(now).toHaveLength(3);
    const row = (id: string, title: string) => ({
      source_id: "city-bids",
      record_id: id,
      title,
      date: null,
      url: null,
      kind: null,
      first_seen_night: "2026-11-04",
      first_seen_at: "2026-11-04T08:00:00.000Z",
    });
    const same = now[0]!;
    await t.store.db
      .insertInto("records")
      .values([
        {
          ...row(same.id, same.title),
          date: same.date ?? null,
          url: same.url ?? null,
          kind: same.kind ?? null,
        },
        row(now[1]!.id, "Paving (old title)"),
        row("gone-1", "A bid the old recipe saw"),
      ])
      .execute();

    const catalog = join(t.dataDir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: city-of-x, name: City of X, kind: city, county: Summit }
sources:
  - id: city-bids
    government: city-of-x
    records: bids
    access: page
    url: "${url}"
    extract: { items: "li.bid", link: a, title: a, date: span }
`,
    );
    const counter = join(t.dataDir, "net-attempts");
    const r = await runCli(["reparse", "--data", t.dataDir, "--catalog", catalog], {
      preload: guard,
      env: { NOR_NET_GUARD_FILE: counter },
    });
    const out = r.stdout.toString();
    expect(r.code, out + r.stderr).toBe(0);
    expect(attempts(counter)).toEqual([]);
    expect(hits).toBe(0);
    expect(out).toContain(
      "city-bids: 1 capture read, 3 records found now, 3 stored — would add 1, would remove 1, would change 1",
    );
    expect(out).toContain(`+ ${now[2]!.id}  Snow plow`);
    expect(out).toContain("- gone-1  A bid the old recipe saw");
    expect(out).toContain(`~ ${now[1]!.id}  Paving (old title) → Paving`);

    const none = await runCli(
      ["reparse", "--data", t.dataDir, "--catalog", catalog, "--since", "2026-11-06"],
      {
        preload: guard,
        env: { NOR_NET_GUARD_FILE: counter },
      },
    );
    expect(none.stdout.toString()).toContain(
      "city-bids: no capture in the window; 3 stored, none called removed",
    );
    const bad = await runCli([
      "reparse",
      "--data",
      t.dataDir,
      "--catalog",
      catalog,
      "--source",
      "nope",
    ]);
    expect(bad.code).toBe(2);
    expect(attempts(counter)).toEqual([]);
  });
});
