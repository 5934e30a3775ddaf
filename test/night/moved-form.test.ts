import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { expectAllStoredAndDone, formBehindFeed } from "../review/form-behind-feed-world.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P11, P5, P7: a search form whose page moved permanently (301) is opened where it moved from the
 * night after the move was seen, as a page is (test/night/moved-permanently.test.ts): by the
 * night that reads it first, and by a backfill that opens it behind a feed that answers first
 * (ownFirstPage). Never the catalog URL and its redirect again.
 */
const world = testerWorld("nor-moved-form-");

describe("P11, P5, P7: a form whose page moved permanently", () => {
  it("P11, P5, P7: a form whose page moved permanently is opened where it moved, by the night and by its backfill behind a feed (ownFirstPage), never at its catalog URL again; told once", async () => {
    const { asked, refused, data } = await formBehindFeed(
      world,
      ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"],
      { moved: true },
    );
    // Night 1 follows the move (and remembers it); no night after asks the catalog URL.
    expect(asked.get(1)?.[0]).toBe("GET moved");
    for (const [n, seen] of asked)
      if (n > 1) expect(seen.includes("GET moved"), `night ${n}: ${seen.join(", ")}`).toBe(false);
    // The backfill behind the feed opened the form (where it moved) and went on to its end.
    expect([...asked.keys()].some((n) => n > 2 && asked.get(n)?.includes("GET"))).toBe(true);
    expect(refused()).toBe(0);
    expectAllStoredAndDone(data);
    const flags = await runMain(["flags", "--json", "--data", data]);
    expect(flags.code, flags.stderr).toBe(0);
    const moved = (JSON.parse(flags.stdout) as { kind: string; detail: string }[]).filter(
      (f) => f.kind === "moved",
    );
    expect(moved).toHaveLength(1);
    expect(moved[0]?.detail).toContain("/New/Search.aspx");
  }, 120_000);
});

describe("P8, P5, P11: nor reparse of a form whose page moved permanently", () => {
  it("P8, P5, P11: nor reparse of a form opened where its page moved (behind a feed) leaves the blank form out, as at its catalog URL, and calls none removed", async () => {
    const { data, feedFirst } = await formBehindFeed(
      world,
      ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"],
      { moved: true },
    );
    const re = await runMain(["reparse", "--data", data, "--catalog", feedFirst]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).not.toContain("not a feed");
    expect(re.stdout).not.toMatch(/would remove [1-9]/);
  }, 120_000);
});

describe("P8, P5, P11: nor reparse of a form whose page moved, then moved back", () => {
  it("P8, P5, P11: nor reparse leaves out the blank form asked where its page had moved, after the move is forgotten (its target gone, the form back at its catalog URL): no note of it as a list", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let phase = 1;
    const form = `<html><body><form method="post" action="./Search.aspx"><input type="text" name="from" value="" /><input type="submit" name="go" value="Search" /></form></body></html>`;
    const results = `<html><body><table><tr class="row"><td><a href="/D/1.pdf">Item 1</a></td><td>10/01/2026</td></tr><tr class="row"><td><a href="/D/2.pdf">Item 2</a></td><td>10/02/2026</td></tr></table></body></html>`;
    const html = (res: ServerResponse, s: string) =>
      void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
    // Nights 1-2: the form's page moved permanently to /New/ (asked there on night 2); night 3:
    // gone there (the move forgotten); night 4: the form is back at its catalog URL.
    site.route("/Search.aspx", (req, res) => {
      if (req.method === "GET" && phase < 3)
        return void res.writeHead(301, { location: "/New/Search.aspx" }).end();
      html(res, req.method === "GET" ? form : results);
    });
    site.route("/New/Search.aspx", (req, res) => {
      if (phase >= 2) return void res.writeHead(404).end();
      html(res, req.method === "GET" ? form : results);
    });
    const catalog = testerCatalog(world.dir, "form-moved-back", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      `      submit: "go"`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
    ]);
    const data = join(world.dir, "form-moved-back");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    phase = 2;
    await nightOn(catalog, data, "2026-11-22");
    phase = 3;
    await nightOn(catalog, data, "2026-11-23");
    // The blank form was asked at /New/ directly on night 2 (the move remembered then).
    expect(
      site.requests.filter((r) => r.method === "GET" && r.path === "/New/Search.aspx"),
    ).toHaveLength(3);
    const re = await runMain(["reparse", "--data", data, "--catalog", catalog]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).not.toContain("/New/Search.aspx");
    expect(re.stdout).not.toMatch(/would remove [1-9]/);
  }, 120_000);
});
