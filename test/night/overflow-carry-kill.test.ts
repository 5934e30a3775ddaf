import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ask, type NewAnswer } from "../review/tester-new-world.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/** P7, P8: a night killed while it reads an overflow carried over, then resumed. */
const world = testerWorld("nor-overflow-kill-");
const REPO = join(import.meta.dirname, "..", "..");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const PER_PAGE = 3;

function asked(data: string, night: string): string[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare(
        "select url from request_log where night = ? and purpose != 'robots' order by started_at, id",
      )
      .all(night) as { url: string }[];
    return rows.map((r) => {
      const u = new URL(r.url);
      return u.pathname + u.search;
    });
  } finally {
    db.close();
  }
}

async function newTitles(data: string, night: string): Promise<string[]> {
  const [fresh] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [`/api/new?night=${night}`]);
  return (fresh?.json?.items ?? []).map((i) => i.title).sort();
}

const titles = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `R ${from + i}`).sort();

describe("a night killed while reading an overflow carried over (P7, P8)", () => {
  it("P7, P8: killed after a carried-over page answered, before the source's commit, then resumed: nothing lost, nothing new twice, no page it archived asked again", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    let onPage: ((page: number) => void) | undefined;
    site.route("/list", (req: IncomingMessage, res: ServerResponse) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i);
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/d/r-${n}.pdf">R ${n}</a> <span>11/01/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`,
          () => onPage?.(page),
        );
    });
    const catalog = testerCatalog(world.dir, "kill-carry", [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "kill-carry");
    await nightOn(catalog, data, "2026-11-20");
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));

    // Night 22 in its own process, killed 0.5 s after page 6 (the second carried over) answered.
    const killed = await new Promise<string | null>((resolve, reject) => {
      const p = spawn(
        process.execPath,
        [
          "bin/nor.js",
          ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-22"],
          // A gap long enough for the kill to land between page 6's answer and page 7's request.
          ...["--allow-private-addresses", "--gap-ms", "1500"],
        ],
        { cwd: REPO, stdio: ["ignore", "ignore", "ignore"] },
      );
      const bound = setTimeout(() => p.kill("SIGKILL"), 60_000);
      onPage = (page) => {
        if (page === 6) setTimeout(() => p.kill("SIGKILL"), 600);
      };
      p.on("error", reject);
      p.on("exit", (_code, signal) => {
        clearTimeout(bound);
        resolve(signal);
      });
    });
    onPage = undefined;
    expect(killed).toBe("SIGKILL");
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=5", "/list?page=6"]);

    // Resumed: pages 5 and 6 read from tonight's copies, page 7 asked.
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    const seen = [...(await newTitles(data, "2026-11-22"))];
    for (const night of ["2026-11-23", "2026-11-24"]) {
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
    }
    expect(seen.sort()).toEqual(titles(11, 28));
    await nightOn(catalog, data, "2026-11-25");
    expect(asked(data, "2026-11-25")).toEqual(["/list"]);
  }, 120_000);
});
