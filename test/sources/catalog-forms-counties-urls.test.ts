import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OHIO_COUNTIES } from "../../src/sources/catalog/counties.js";
import { loadCatalog, parseCatalog } from "../../src/sources/catalog/load.js";
import {
  dateFormatProblem,
  dateTemplateProblem,
  fillDateTemplates,
  formatDate,
} from "../../src/sources/extract/form-dates.js";
import { nor } from "../cli/cli-capture.js";
import { problems } from "./catalog-problems.js";

/**
 * What an outside tester found the catalog let through: search-form templates and date formats
 * the form filler does not understand (sent to the site as written), counties Ohio does not
 * have (shown in the public directory as counties), and addresses the URL parser rewrites
 * (`http://127.0.0.1\@evil.com/feed` fetched from 127.0.0.1, `http:/host` read as `http://host`).
 */

const GOV = `governments:
  - { id: city-of-x, name: City of X, kind: city, county: Summit }
`;

/** A form source whose form spec is `form` (a YAML flow mapping). */
const formSource = (form: string) => `${GOV}sources:
  - id: x-permits
    government: city-of-x
    records: permits
    url: https://www.x.gov/search
    access: form
    form: ${form}
    extract: { items: tr }
`;

const NOT_A_TEMPLATE =
  "is not a date template: the form filler knows {today}, {today-30d}, {today+2w}, {today-1m}, {today-1y} (+ or -, 1 to 4 digits, then d, w, m or y) and would send anything else as written";

const NOW = Date.parse("2026-03-31T16:00:00Z");

describe("P5: a search form's date templates and format are the form filler's own", () => {
  it("P5: refuses a field template and a dateFormat the filler would send as written, at their line and field", () => {
    const text = formSource(
      `{ fields: { from: "{today-3x}", to: "{tody}" }, dateFormat: "QQ/YY" }`,
    );
    expect(problems(text)).toEqual([
      `cat.yaml:9:29: sources[0].form.fields.from: "{today-3x}" ${NOT_A_TEMPLATE}`,
      `cat.yaml:9:47: sources[0].form.fields.to: "{tody}" ${NOT_A_TEMPLATE}`,
      `cat.yaml:9:71: sources[0].form.dateFormat: "QQ/YY" has letters the form filler does not format (Q, Y), which it would send as written: its tokens are YYYY, MM, DD, M and D (upper case)`,
    ]);
  });

  it("P5: checks an alternate's form too, and a template never closed", () => {
    const text = `${GOV}sources:
  - id: x-permits
    government: city-of-x
    records: permits
    url: https://www.x.gov/feed
    alternates:
      - access: form
        url: https://www.x.gov/search
        form:
          fields:
            start: "{today-30d"
            end: "{Today}"
          dateFormat: MMM D, YYYY
        extract: { items: tr }
`;
    expect(problems(text)).toEqual([
      `cat.yaml:13:20: sources[0].alternates[0].form.fields.start: "{today-30d" opens a template never closed: the form filler knows {today}, {today-30d}, {today+2w}, {today-1m}, {today-1y} (+ or -, 1 to 4 digits, then d, w, m or y) and would send anything else as written`,
      `cat.yaml:14:18: sources[0].alternates[0].form.fields.end: "{Today}" ${NOT_A_TEMPLATE}`,
      `cat.yaml:15:23: sources[0].alternates[0].form.dateFormat: "MMM D, YYYY" writes the month twice (MM, then M)`,
    ]);
  });

  it("P5: accepts every documented template, literal values (braces around other text too) and the formats the filler writes", () => {
    const text = formSource(`
      fields:
        a: "{today}"
        b: "{today-30d}"
        c: "{today+2w}"
        d: "{today-1m}"
        e: "{today-1y}"
        f: "from {today-9999d} to {today}"
        g: plain text
        h: 20
        i: '{"enabled":true,"emptyMessage":""}'
        j: "{{today}}"
        k: ""
      dateFormat: YYYYMMDD`);
    expect(parseCatalog(text, "ok.yaml").sources[0]?.form?.fields).toMatchObject({ h: "20" });
    for (const format of ["MM/DD/YYYY", "M/D/YYYY", "DD.MM.YYYY", "YYYY-MM-DDT00:00", "MM/YYYY"]) {
      const one = formSource(`{ fields: { a: "{today}" }, dateFormat: "${format}" }`);
      expect(parseCatalog(one, "ok.yaml").sources[0]?.form?.dateFormat).toBe(format);
    }
  });

  it("P5: the check and the filler agree: what passes is filled, what is refused is left as written", () => {
    for (const value of ["{today}", "{today-30d}", "{today+2w}", "{today-1m}", "x {today-1y} y"]) {
      expect(dateTemplateProblem(value)).toBeUndefined();
      expect(fillDateTemplates(value, NOW)).not.toMatch(/[{}]/);
    }
    for (const value of ["{today-3x}", "{tody}", "{today-99999d}", "{ today }", "{today+1}"]) {
      expect(dateTemplateProblem(value)).toBeDefined();
      expect(fillDateTemplates(value, NOW)).toBe(value);
    }
    const day = new Date(Date.UTC(2026, 2, 5));
    for (const format of ["YYYYMMDD", "M/D/YYYY", "YYYY-MM-DDT00:00"]) {
      expect(dateFormatProblem(format)).toBeUndefined();
      expect(formatDate(day, format)).toMatch(/2026/);
    }
    for (const format of ["QQ/YY", "yyyy-mm-dd", "MMM D", "", "-/"]) {
      expect(dateFormatProblem(format)).toBeDefined();
    }
    expect(formatDate(day, "QQ/YY")).toBe("QQ/YY");
    expect(formatDate(day, "yyyy-mm-dd")).toBe("yyyy-mm-dd");
  });
});

describe("a government's county is one of Ohio's 88", () => {
  const gov = (county: string) =>
    `governments:\n  - { id: city-of-x, name: City of X, kind: city, county: "${county}" }\n`;
  const near = (written: string, county: string) =>
    `cat.yaml:2:59: governments[0].county: unknown county "${written}": did you mean "${county}"? (one of Ohio's 88 counties, written without the word "County")`;

  it("refuses a misspelt county, naming the closest (with the word County, in another case, swapped letters)", () => {
    expect(problems(gov("Sumit County"))).toEqual([near("Sumit County", "Summit")]);
    expect(problems(gov("Sumit"))).toEqual([near("Sumit", "Summit")]);
    expect(problems(gov("Summit County"))).toEqual([near("Summit County", "Summit")]);
    expect(problems(gov("summit"))).toEqual([near("summit", "Summit")]);
    expect(problems(gov("Cuyahgoa"))).toEqual([near("Cuyahgoa", "Cuyahoga")]);
    expect(problems(gov("Van wert"))).toEqual([near("Van wert", "Van Wert")]);
  });

  it("refuses a county far from any of Ohio's without a guess", () => {
    expect(problems(gov("Harmon"))).toEqual([
      `cat.yaml:2:59: governments[0].county: unknown county "Harmon": not one of Ohio's 88 counties, written as Ohio writes them without the word "County" (e.g. "Summit", "Van Wert")`,
    ]);
    expect(problems(gov("Los Angeles"))).toEqual([
      expect.stringContaining(`unknown county "Los Angeles": not one of Ohio's 88 counties`),
    ]);
  });

  it("accepts each of the 88, and a government naming none; the bundled catalog names exactly them", () => {
    expect(new Set(OHIO_COUNTIES).size).toBe(88);
    const text = `governments:\n${OHIO_COUNTIES.map((c, i) => `  - { id: g-${i}, name: G, kind: city, county: ${c} }\n`).join("")}  - { id: none, name: N, kind: other }\n`;
    expect(parseCatalog(text, "ok.yaml").governments).toHaveLength(89);
    const bundled = loadCatalog([join(import.meta.dirname, "../../catalog/ohio.yaml")]);
    const named = new Set(bundled.governments.flatMap((g) => (g.county ? [g.county] : [])));
    expect([...named].sort()).toEqual([...OHIO_COUNTIES].sort());
  });
});

describe("P3: an address is fetched, stored and shown as written", () => {
  const BACKSLASH =
    "URL contains a backslash, which the URL parser takes for / so the address used is not the one written";

  it("P3: refuses a backslash and a scheme without its //, in sources, alternates, websites and leads", () => {
    const text = `governments:
  - { id: city-of-x, name: City of X, kind: city, website: "https:\\\\\\\\x.gov/" }
sources:
  - id: x-feed
    government: city-of-x
    records: notices
    url: "http://127.0.0.1\\\\@evil.com/feed"
    alternates:
      - { access: feed, url: "http:/127.0.0.1:18081/x" }
      - { access: feed, url: "https:x.gov/feed" }
leads:
  - { government: city-of-x, records: minutes, url: "http:\\\\\\\\evil.com/x", why: seen }
  - { government: city-of-x, records: minutes, url: "https:/x.gov/minutes", why: seen }
  - { government: city-of-x, records: minutes, url: "www.x.gov\\\\minutes", why: seen }
`;
    expect(problems(text)).toEqual([
      `cat.yaml:2:60: governments[0].website: ${BACKSLASH} (the URL parser reads it as https://x.gov/): write / (or %5C for a backslash itself)`,
      `cat.yaml:7:10: sources[0].url: ${BACKSLASH} (the URL parser reads it as http://127.0.0.1/@evil.com/feed): write / (or %5C for a backslash itself)`,
      "cat.yaml:9:30: sources[0].alternates[0].url: URL must start with http:// or https:// exactly as written (the URL parser reads it as http://127.0.0.1:18081/x)",
      "cat.yaml:10:30: sources[0].alternates[1].url: URL must start with http:// or https:// exactly as written (the URL parser reads it as https://x.gov/feed)",
      `cat.yaml:12:53: leads[0].url: ${BACKSLASH} (the URL parser reads it as http://evil.com/x): write / (or %5C for a backslash itself)`,
      "cat.yaml:13:53: leads[1].url: URL must start with http:// or https:// exactly as written (the URL parser reads it as https://x.gov/minutes)",
      `cat.yaml:14:53: leads[2].url: ${BACKSLASH}: write / (or %5C for a backslash itself)`,
    ]);
  });

  it("P3: still accepts what it accepted: any case of the scheme, ports, IP literals, leads without a scheme", () => {
    const text = `governments:
  - { id: city-of-x, name: City of X, kind: city, website: "HTTPS://WWW.X.GOV/" }
sources:
  - { id: a, government: city-of-x, records: notices, access: feed, url: "Http://127.0.0.1:8080/feed" }
  - { id: b, government: city-of-x, records: notices, access: feed, url: "https://[::1]/a%5Cb?q=1" }
leads:
  - { government: city-of-x, records: minutes, url: "www.x.gov/minutes", why: seen }
  - { government: city-of-x, records: minutes, url: "x.gov:8080/m", why: seen }
  - { government: city-of-x, records: minutes, url: "https://x.gov/{year}", why: seen }
`;
    const c = parseCatalog(text, "ok.yaml");
    expect(c.sources.map((s) => s.url)).toEqual([
      "Http://127.0.0.1:8080/feed",
      "https://[::1]/a%5Cb?q=1",
    ]);
    expect(c.leads).toHaveLength(3);
  });
});

describe("nor catalog check, catalog import and night --catalog refuse them, exit 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-catalog-tester3-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("P3, P5: each names file:line:col and the field, and no store is made", async () => {
    const f = join(dir, "bad.yaml");
    writeFileSync(
      f,
      `${GOV.replace("Summit", "Sumit County")}sources:
  - id: x-permits
    government: city-of-x
    records: permits
    url: "http://127.0.0.1\\\\@evil.com/feed"
    access: form
    form: { fields: { to: "{tody}" }, dateFormat: "QQ/YY" }
    extract: { items: tr }
`,
    );
    const said = [
      `${f}:2:59: governments[0].county: unknown county "Sumit County": did you mean "Summit"?`,
      `${f}:7:10: sources[0].url: URL contains a backslash`,
      `${f}:9:27: sources[0].form.fields.to: "{tody}" is not a date template`,
      `${f}:9:51: sources[0].form.dateFormat: "QQ/YY" has letters the form filler does not format`,
    ];
    const check = await nor("catalog", "check", f);
    expect(check.code).toBe(2);
    const lines = check.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(4);
    for (const [i, start] of said.entries()) expect(lines[i]).toContain(start);

    const data = join(dir, "data");
    for (const args of [
      ["catalog", "import", f, "--data", data],
      ["night", "--catalog", f, "--data", data],
    ]) {
      const r = await nor(...args);
      expect(r.code, args.join(" ")).toBe(2);
      const out = `${r.stdout}${r.stderr}`;
      for (const start of said) expect(out, args.join(" ")).toContain(start);
      expect(existsSync(data), args.join(" ")).toBe(false);
    }
  });
});
