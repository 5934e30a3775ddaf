import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, testerWorld } from "../night/tester-nights.js";
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
    const catalog = join(world.dir, "c.yaml");
    const data = join(world.dir, "data");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        "  - id: bids",
        "    government: city-of-test",
        "    records: bids",
        `    url: ${site.url("/bids")}`,
        "    extract: { items: 'li.doc', title: a, link: a }",
        `  - { id: notices, government: city-of-test, records: notices, access: feed, url: "${site.url("/RSSFeed.aspx")}" }`,
        "",
      ].join("\n"),
    );
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
});
