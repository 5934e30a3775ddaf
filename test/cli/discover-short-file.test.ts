/**
 * P8: `nor discover` writes into the same archive as the night. A WARC file cut short (a copy
 * or restore that stopped part way) was said by `nor night` and silently passed over by
 * `nor discover`, which opened the archive without the note: the operator learned of the lost
 * copies only from a night. Now discover says it once, in the night's words, and goes on.
 */
import { mkdtempSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { openStore } from "../../src/store/db.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { runMain } from "./cli-capture.js";

describe("nor discover over an archive file cut short (P8)", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.7" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(200).end("User-agent: *\n"));
    site.route("/", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<html><head><link rel="alternate" type="application/rss+xml" title="Agendas" href="/agendas.rss"></head><body>${"<p>news</p>".repeat(200)}</body></html>`,
        );
    });
    dir = mkdtempSync(join(tmpdir(), "nor-discover-short-"));
    // discover logs into a store that is there already (as a night or an import leaves it).
    await (await openStore({ kind: "sqlite", dir })).close();
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const discover = () =>
    runMain([
      "discover",
      site.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);

  it("P8: says once which file is short and by how much, and still reads the homepage", async () => {
    const first = await discover();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("bytes short");

    // Cut the only file inside the homepage's stored copy: that copy is lost.
    const archive = join(dir, "archive");
    const files = listWarcFiles(archive);
    expect(files).toHaveLength(1);
    const file = files[0] as string;
    const path = join(archive, file);
    const indexedEnd = statSync(path).size;
    const store = await openStore({ kind: "sqlite", dir });
    const home = (await capturesOf(store.db, site.url("/")))[0];
    await store.close();
    expect(home?.file).toBe(file);
    const cut = (home?.offset ?? 0) + Math.floor((home?.length ?? 0) / 2);
    truncateSync(path, cut);

    const asked = site.hits("/").length;
    const second = await discover();
    expect(second.code, second.stderr).toBe(0);
    const told = second.stderr.split("\n").filter((l) => l.includes("bytes short"));
    expect(told, second.stderr).toHaveLength(1);
    expect(told[0]).toMatch(/^nor discover: /);
    expect(told[0]).toContain(path);
    expect(told[0]).toContain(`${indexedEnd - cut} bytes short`);
    expect(told[0]).toContain(`the stored copy past byte ${cut} cannot be read back`);
    // The homepage is read again and its candidates printed, as without the cut.
    expect(site.hits("/").length).toBe(asked + 1);
    expect(second.stdout).toContain(site.url("/agendas.rss"));
  });
});
