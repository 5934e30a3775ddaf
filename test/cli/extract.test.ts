import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";

const FX = join(import.meta.dirname, "..", "fixtures", "platforms");

describe("nor extract", () => {
  it("P6: --recipe prints the records as a JSON array, keys in the order id, title, date, url, kind", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const recipe = join(d, "neorsd.yaml");
    writeFileSync(
      recipe,
      `items: "#fileList tr:has(> td > a[href*='I_Library.php'])"\ntitle: td:first-child a\nlink: td:first-child a\ndate: td:first-child\nkind: td:nth-child(3)\nnext: "#fileList a:contains('Next')"\n`,
    );
    const r = await nor(
      "extract",
      "--recipe",
      recipe,
      join(FX, "ohio-county-html", "OH_neorsd_document_library_agendas.html"),
      "--url",
      "https://www.neorsd.org/document-library/?PAGE=2",
    );
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, string>[];
    expect(records).toHaveLength(10);
    expect(Object.keys(records[0]!)).toEqual(["id", "title", "date", "url", "kind"]);
    expect(records[0]).toMatchObject({ title: "Board Agenda - June 20, 2019", date: "2019-06-20" });
    expect(r.stderr).toContain("next: https://www.neorsd.org/document-library/?PAGE=3");
  });

  it("accepts a way with extract: copied from a catalog, and drops relative links without --url", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const recipe = join(d, "way.yaml");
    writeFileSync(
      recipe,
      "access: page\nurl: https://x.gov/\nextract:\n  items: table.table-striped tbody tr\n  title: td:nth-child(2)\n  date: td:first-child\n",
    );
    const r = await nor(
      "extract",
      "--recipe",
      recipe,
      join(FX, "ohio-county-html", "OH_cuyahoga_board_of_control.html"),
    );
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, string>[];
    expect(records).toHaveLength(5);
    expect(records[0]).toEqual({
      id: expect.stringMatching(/^h:/),
      title: "01/29/24 - Board of Control Meeting",
      date: "2024-01-29",
    });
    expect(r.stderr).toContain("no --url given");
  });

  it("--platform runs a preset on a saved file", async () => {
    const r = await nor(
      "extract",
      "--platform",
      "civicplus-rss",
      join(FX, "civicplus-rss", "FL_lakewales_RSSFeed_ModID65_AgendaCreator.xml"),
      "--url",
      "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBeGreaterThan(0);
  });

  it("exits 2 on usage errors and 1 on a broken recipe", async () => {
    const page = join(FX, "ohio-county-html", "OH_cuyahoga_board_of_control.html");
    expect((await nor("extract", page)).code).toBe(2);
    expect((await nor("extract", "--platform", "nope", page)).code).toBe(2);
    expect(
      (await nor("extract", "--platform", "civicplus-rss", "--recipe", "x.yaml", page)).code,
    ).toBe(2);
    expect((await nor("extract", "--recipe", "/nonexistent.yaml", page)).code).toBe(2);
    expect(
      (await nor("extract", "--platform", "civicplus-rss", page, "--url", "ftp://x")).code,
    ).toBe(2);
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    writeFileSync(join(d, "bad.yaml"), "title: td\nitemz: tr\n");
    const bad = await nor("extract", "--recipe", join(d, "bad.yaml"), page);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.yaml: not a page recipe: .*items/);
  });

  it("P6: --timezone reads a page as its government's; a page the preset cannot read exits 1 and says why", async () => {
    const page = join(FX, "legistar-html", "TN_nashville_Calendar.aspx_POST_year2023.html");
    const url = "https://nashville.legistar.com/Calendar.aspx";
    // Nashville is in Central time.
    const r = await nor(
      "extract",
      "--platform",
      "legistar-html",
      page,
      "--url",
      url,
      "--timezone",
      "America/Chicago",
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        id: "812493",
        title: "Metropolitan Council",
        date: "2023-08-15T18:30:00-05:00",
        kind: "meetings",
      },
    ]);
    expect(
      (await nor("extract", "--platform", "legistar-html", page, "--timezone", "CST")).code,
    ).toBe(2);

    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const renamed = join(d, "calendar.html");
    writeFileSync(
      renamed,
      readFileSync(page, "latin1")
        .replace(/>Name</g, ">Nom<")
        .replace(/>Meeting Date</g, ">Quand<"),
      "latin1",
    );
    const bad = await nor("extract", "--platform", "legistar-html", renamed, "--url", url);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(
      /cannot read this page: Legistar grid listing meetings without Name and Meeting Date headers/,
    );
  });

  it("--recipe: a selector the reader cannot parse names the recipe file, line and field, exit 2", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const page = join(d, "page.html");
    writeFileSync(page, "<ul><li><a href=/a>A</a></li></ul>");
    const recipe = join(d, "bad.yaml");
    writeFileSync(recipe, "items: 'li[[['\ntitle: a\n");
    const r = await nor("extract", "--recipe", recipe, page);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `${recipe}:1:8: items: not a CSS selector the reader can use: Expected name, found [[`,
    );
    // A way copied from a catalog: the field is said as written there.
    const way = join(d, "way.yaml");
    writeFileSync(way, "url: https://x.gov/\nextract:\n  items: li\n  date: 'time:foo@datetime'\n");
    const w = await nor("extract", "--recipe", way, page);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain(
      `${way}:4:9: extract.date: not a CSS selector the reader can use: Unknown pseudo-class :foo`,
    );
  });

  it("P14: a file that never ends (/dev/zero) or is larger than 20 MiB is refused at the limit, never read until memory runs out; so is a recipe over 1 MiB", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const recipe = join(d, "r.yaml");
    writeFileSync(recipe, "items: li\ntitle: a\n");
    const page = await nor("extract", "--recipe", recipe, "/dev/zero");
    expect(page.code).toBe(2);
    expect(page.stderr).toContain(
      "extract: /dev/zero holds more than 20 MiB, the most the checker ever reads of an answer (P14): not read",
    );
    const html = join(d, "page.html");
    writeFileSync(html, "<ul><li><a href='/a'>A</a></li></ul>");
    const big = await nor("extract", "--recipe", "/dev/zero", html);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain("--recipe: /dev/zero holds more than 1 MiB");
  });

  it("P13, P14: --platform on a page nested too deeply to read prints no records and the note a night would keep (exit 0)", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-extract-"));
    const page = join(d, "deep.html");
    writeFileSync(
      page,
      `<!DOCTYPE html><html><body>${"<div>".repeat(200_000)}<ul><li><a href="/x">A</a></li></ul></body></html>`,
    );
    const r = await nor(
      "extract",
      "--platform",
      "civicplus-agendacenter",
      page,
      "--url",
      "https://x.gov/",
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toContain("note: the page nests its elements too deeply");
  });
});
