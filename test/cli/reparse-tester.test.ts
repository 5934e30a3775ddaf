import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { nor } from "./cli-capture.js";

/**
 * What an outside tester found of `nor reparse` (P8: re-extraction over the stored copies,
 * offline): a CAPTCHA page the site answered with 200 was read as the list, and every stored
 * record said to be removed; a way's answer that shows no records was reported as bare
 * numbers, without the reader's why.
 */
const world = testerWorld("nor-reparse-tester-");
const GATE = readFileSync(join(import.meta.dirname, "../fixtures/refusal/recaptcha-gate-200.html"));
const list = (items: string[]) =>
  `<!DOCTYPE html><html><body><ul>${items.map((t) => `<li class="doc"><a href="/d/${t}.pdf">${t}</a></li>`).join("")}</ul></body></html>`;

describe("nor reparse, from outside", () => {
  it("P8, P21: a stored CAPTCHA page is the site's no, not its list: no stored record is called removed, and the reader's why is said for a page with none", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    let gate = false;
    site.route("/bids", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(gate ? GATE : list(["B1", "B2"]));
    });
    site.route("/RSSFeed.aspx", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(list(["N1"]));
    });
    const data = join(world.dir, "data");
    const catalog = testerCatalog(world.dir, "c", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/bids")}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
      `  - { id: notices, government: city-of-test, records: notices, access: feed, url: "${site.url("/RSSFeed.aspx")}" }`,
    ]);
    await nightOn(catalog, data, "2026-11-05");
    gate = true;
    await nightOn(catalog, data, "2026-11-06");
    const before = site.requests.length;
    const r = await nor("reparse", "--data", data, "--catalog", catalog);
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.length).toBe(before);
    expect(r.stdout).not.toMatch(/bids: .*would remove [1-9]/);
    expect(r.stdout).toMatch(
      /no: .*\/bids .*the site's no \(recaptcha challenge: whole page.*none called removed/,
    );
    expect(r.stdout).toMatch(/note: .*\/RSSFeed\.aspx: not a feed/);
  }, 60_000);

  it("P8: a source whose only stored copy is the site's 403 says that copy is there, the site's answer, not that none is stored", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/minutes", (_q, res) => {
      res.writeHead(403, { "content-type": "text/html; charset=utf-8" }).end("Access denied");
    });
    const data = join(world.dir, "data-403");
    const catalog = testerCatalog(world.dir, "c403", [
      "  - id: minutes",
      "    government: city-of-test",
      "    records: minutes",
      `    url: ${site.url("/minutes")}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
    ]);
    const nightFrom = Date.now();
    await nightOn(catalog, data, "2026-11-05");
    const nightTo = Date.now();
    const r = await nor("reparse", "--data", data, "--catalog", catalog);
    expect(r.code, r.stderr).toBe(0);
    const line =
      /^minutes: no list copy stored: its latest stored copy \(([^)]+)\) is the site's answer 403, kept \(P8\) but not read as the list; 0 stored, none called removed$/m;
    expect(r.stdout).toMatch(line);
    // The copy's time is when the night asked, whatever the date the test runs on.
    const shown = Date.parse(line.exec(r.stdout)?.[1] ?? "");
    expect([nightFrom <= shown, shown <= nightTo]).toEqual([true, true]);
  }, 60_000);

  it("P8, P5: a search form whose result pages are POSTs to one address: every page of its last check is read again, and none of its records is called removed", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const GRID = "ctl00$Main$gvResults";
    const rows = (p: number) =>
      [1, 2]
        .map((i) => (p - 1) * 2 + i)
        .map(
          (n) =>
            `<tr class="row"><td><a href="/Docs/R${n}.pdf">Resolution ${100 - n}</a></td></tr>`,
        )
        .join("");
    const pager = (p: number) =>
      [1, 2, 3]
        .map((n) =>
          n === p
            ? `<td><span>${n}</span></td>`
            : `<td><a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a></td>`,
        )
        .join("");
    const form = (vs: string, grid = "") =>
      `<!DOCTYPE html><html><body><form method="post" action="./Search.aspx"><input type="hidden" name="__EVENTTARGET" value=""><input type="hidden" name="__EVENTARGUMENT" value=""><input type="hidden" name="__VIEWSTATE" value="${vs}"><input type="text" name="from" value=""><input type="submit" name="go" value="Search">${grid}</form></body></html>`;
    site.route("/Search.aspx", (req, res, { seen }) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      if (req.method === "GET") return void res.end(form("VS-FORM"));
      const f = new URLSearchParams(seen.body);
      const m = /^Page\$(\d)$/.exec(f.get("__EVENTARGUMENT") ?? "");
      const p = f.get("__EVENTTARGET") === GRID && m ? Number(m[1]) : 1;
      res.end(
        form(
          `VS-P${p}`,
          `<table id="grid">${rows(p)}<tr class="pager"><td><table><tr>${pager(p)}</tr></table></td></tr></table>`,
        ),
      );
    });
    const data = join(world.dir, "form-data");
    const catalog = testerCatalog(world.dir, "form", [
      "  - id: resolutions",
      "    government: city-of-test",
      "    records: other",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      '      fields: { from: "{today-30d}" }',
      "      submit: go",
      `      pager: "${GRID}"`,
      "    extract: { items: '#grid tr.row', title: 'td a', link: 'td a' }",
      "    backfill: { pagesPerNight: 2 }",
    ]);
    await nightOn(catalog, data, "2026-11-05");
    expect(site.requests.filter((r) => r.method === "POST")).toHaveLength(3);
    const r = await nor("reparse", "--data", data, "--catalog", catalog);
    expect(r.code, r.stderr).toBe(0);
    // The blank form (GET) is no list: the three result pages are read.
    expect(r.stdout).toMatch(
      /resolutions: 3 captures read, 6 records found now, 6 stored — would add 0, would remove 0, would change 0/,
    );
    expect(r.stdout).not.toContain("no items matched");
    // The backfill done, the next night posts page 1 only: pages 2 and 3, posted before, are
    // not read again, and what they held is not called removed.
    await nightOn(catalog, data, "2026-11-06");
    const again = await nor("reparse", "--data", data, "--catalog", catalog);
    expect(again.stdout).toMatch(
      /resolutions: 1 capture read, 2 records found now, 6 stored — would add 0, would remove 0/,
    );
    expect(again.stdout).toContain(
      "result pages posted on earlier nights and not since are not read again",
    );
  }, 60_000);

  it("P8: a source moved from its feed to a page: the feed's copies are not read with the page's recipe; nothing is called removed before the page is read", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed.xml", (_q, res) => {
      res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Notice 1</title><link>${site.url("/n/1")}</link></item></channel></rss>`,
        );
    });
    const { writeFileSync } = await import("node:fs");
    const data = join(world.dir, "moved-data");
    const before = join(world.dir, "moved-before.yaml");
    const after = join(world.dir, "moved-after.yaml");
    const head = [
      "governments:",
      "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
      "sources:",
    ];
    writeFileSync(
      before,
      [
        ...head,
        `  - { id: notices, government: city-of-test, records: notices, access: feed, url: "${site.url("/feed.xml")}" }`,
        "",
      ].join("\n"),
    );
    writeFileSync(
      after,
      [
        ...head,
        "  - id: notices",
        "    government: city-of-test",
        "    records: notices",
        `    url: ${site.url("/notices")}`,
        "    extract: { items: 'li', title: a, link: a }",
        "",
      ].join("\n"),
    );
    await nightOn(before, data, "2026-11-05");
    const r = await nor("reparse", "--data", data, "--catalog", after);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "notices: no capture stored of today's ways (1 read by a way the catalog no longer has, not read); 1 stored, none called removed",
    );
  }, 60_000);

  it("P8, P4: a feed whose latest copy is a page for people (not a feed) is not read as the list: none of its stored records is called removed, and that copy is said not to be the list", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    let maintenance = false;
    const items = ["Notice 1", "Notice 2", "Notice 3"]
      .map((t, i) => `<item><title>${t}</title><link>${site.url(`/n/${i}`)}</link></item>`)
      .join("");
    site.route("/feed.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(
        maintenance
          ? "<!DOCTYPE html><html><body><h1>Down for maintenance</h1></body></html>"
          : `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items}</channel></rss>`,
      );
    });
    const data = join(world.dir, "data-not-feed");
    const catalog = testerCatalog(world.dir, "cnf", [
      `  - { id: notices, government: city-of-test, records: notices, access: feed, url: "${site.url("/feed.xml")}" }`,
    ]);
    await nightOn(catalog, data, "2026-11-05");
    maintenance = true;
    await nightOn(catalog, data, "2026-11-06");
    const before = site.requests.length;
    const r = await nor("reparse", "--data", data, "--catalog", catalog);
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.length).toBe(before);
    expect(r.stdout).not.toMatch(/would remove [1-9]/);
    expect(r.stdout).not.toMatch(/^ {2}- /m);
    expect(r.stdout).toMatch(/note: .*\/feed\.xml: not a feed: not its list, none called removed/);
  }, 60_000);
});

describe("nor reparse after a recipe change (review of 9151da4)", () => {
  it("P8: an api recipe changed so that it finds no list in the copies the night read records from says what it would remove: the recipe's doing is not taken for a copy that is not the list", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/api/events", (_q, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          value: [1, 2, 3].map((n) => ({ id: n, name: `Meeting ${n}`, url: `/m/${n}` })),
        }),
      );
    });
    const data = join(world.dir, "data-api-recipe");
    const lines = (items: string) => [
      "  - id: events",
      "    government: city-of-test",
      "    records: meetings",
      "    access: api",
      `    url: ${site.url("/api/events")}`,
      `    api: { items: ${items}, title: name, id: id, link: url }`,
    ];
    await nightOn(testerCatalog(world.dir, "api-before", lines("value")), data, "2026-11-05");
    // The operator's new recipe looks for the list under another name: it reads none.
    const changed = testerCatalog(world.dir, "api-after", lines("data"));
    const before = site.requests.length;
    const r = await nor("reparse", "--data", data, "--catalog", changed);
    expect(site.requests.length).toBe(before);
    expect(r.stdout).toMatch(/events: .*would remove 3/);
    expect(r.stdout).not.toMatch(/not its list/);
    expect(r.stdout).toMatch(/note: .*\/api\/events: no array at "data"/);
  }, 60_000);
});
