import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { oneFeedSite } from "./one-feed.js";

/**
 * `nor log --limit N` answers a site owner with the first N attempts: when more match, it says
 * so (on stderr, so --jsonl's lines stay JSON), as the console's log search notes its 500, never
 * a cut answer that reads as all the checker asked.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-log-limit-"));
const data = join(dir, "data");
let site: Awaited<ReturnType<typeof oneFeedSite>>;

beforeAll(async () => {
  site = await oneFeedSite();
  const catalog = writeVillageCatalog(join(dir, "c.yaml"), "Limits", {
    "limits-feed": `records: agendas, access: feed, url: "${site.feed}"`,
  });
  const r = await runMain([
    "night",
    ...["--catalog", catalog, "--data", data],
    ...["--allow-private-addresses", "--gap-ms", "0"],
  ]);
  expect(r.code, r.stderr).toBe(0);
  // robots.txt (404) and the feed: two attempts.
  expect(site.asked).toEqual(["/robots.txt", "/feed.rss"]);
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("nor log --limit", () => {
  it("P27: says on stderr when more attempts match than the limit shows, in the table and in --jsonl", async () => {
    const cut = await runMain(["log", "--data", data, "--limit", "1"]);
    expect(cut.code, cut.stderr).toBe(0);
    expect(cut.stdout).toContain("/robots.txt");
    expect(cut.stdout).not.toContain("/feed.rss");
    expect(cut.stderr).toContain("nor log: --limit 1: more attempts match");

    const jsonl = await runMain(["log", "--data", data, "--limit", "1", "--jsonl"]);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    expect(jsonl.stdout.trim().split("\n")).toHaveLength(1);
    expect(jsonl.stderr).toContain("nor log: --limit 1: more attempts match");
  });

  it("P27: says nothing more when the limit shows every attempt that matches", async () => {
    for (const limit of ["2", "3"]) {
      const all = await runMain(["log", "--data", data, "--limit", limit]);
      expect(all.code, all.stderr).toBe(0);
      expect(all.stdout).toContain("/feed.rss");
      expect(all.stderr).toBe("");
    }
  });
});
