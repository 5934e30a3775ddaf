import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_BACKFILL_PAGES } from "../../src/policy/constants.js";
import { loadCatalog, parseCatalog } from "../../src/sources/catalog/load.js";
import type { CatalogError } from "../../src/sources/catalog/problems.js";
import { problems } from "./catalog-problems.js";

const GOV = `governments:
  - id: city-of-akron
    name: City of Akron
    kind: city
    county: Summit
    website: https://www.akronohio.gov/
`;

describe("catalog loading", () => {
  it("a lead's address may lack a scheme or be a template, but a scheme it writes is http(s)", () => {
    const lead = (url: string) =>
      `${GOV}leads:\n  - { government: city-of-akron, records: minutes, url: "${url}", why: seen }\n`;
    for (const ok of [
      "www.akron.gov/minutes",
      "akron.gov:8080/m",
      "https://a.gov/{year}",
      "http://a.gov/",
    ])
      expect(parseCatalog(lead(ok), "l.yaml").leads.map((l) => l.url)).toEqual([ok]);
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,x",
      " mailto:clerk@akron.gov",
      "ftp://a.gov/",
    ])
      expect(problems(lead(bad)).join("\n")).toMatch(
        /leads\[0\]\.url: a scheme, when written, must be http:\/\/ or https:\/\//,
      );
  });

  it("P4: reads governments and sources, with defaults and alternates best first", () => {
    const cat = parseCatalog(
      `${GOV}sources:
  - id: akron-council-agendas
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/council/feed.xml
    access: feed
    alternates:
      - access: page
        url: https://www.akronohio.gov/council
        extract: { items: "li.agenda", link: a }
`,
      "a.yaml",
    );
    expect(cat.governments).toHaveLength(1);
    const s = cat.sources[0]!;
    expect(s).toMatchObject({
      id: "akron-council-agendas",
      access: "feed",
      confirmed: false,
      backfill: { pagesPerNight: DEFAULT_BACKFILL_PAGES },
    });
    expect(s.alternates).toEqual([
      {
        access: "page",
        url: "https://www.akronohio.gov/council",
        extract: { items: "li.agenda", link: "a" },
      },
    ]);
    // No absent optional key comes back as `undefined` (exactOptionalPropertyTypes holds).
    expect(JSON.parse(JSON.stringify(cat))).toEqual(cat);
  });

  it("names file:line:column and the field path for every problem, not just the first", () => {
    const lines = problems(
      `${GOV}    colour: blue
sources:
  - id: Bad_Id
    government: city-of-akron
    records: agendas
    url: not a url
    access: page
  - id: two
    government: city-of-akron
    records: rumours
    url: https://x.gov/
    access: feed
    backfill: { pagesPerNight: -1 }
  - government: city-of-akron
    records: bids
    url: https://x.gov/
    access: feed
`,
    );
    expect(lines).toEqual([
      "cat.yaml:7:5: governments[0].colour: unknown key (check the spelling; see docs/catalog.md)",
      expect.stringMatching(/^cat\.yaml:9:9: sources\[0\]\.id: must be kebab-case/),
      expect.stringMatching(/^cat\.yaml:12:10: sources\[0\]\.url: must be an absolute http/),
      "cat.yaml:13:13: sources[0].access: page access needs an `extract` recipe or a `platform`",
      expect.stringMatching(
        /^cat\.yaml:16:14: sources\[1\]\.records: must be one of bids, agendas,/,
      ),
      expect.stringMatching(/^cat\.yaml:19:32: sources\[1\]\.backfill\.pagesPerNight: /),
      "cat.yaml:20:5: sources[2].id: missing required field `id`",
    ]);
  });

  it("refuses an id longer than 200 characters, naming it (it is part of store keys beside a URL)", () => {
    const long = `a${"-b".repeat(100)}`; // 201 characters
    const at200 = long.slice(0, 200).replace(/-$/, "x");
    const lines = problems(`${GOV}sources:
  - id: ${long}
    government: city-of-akron
    records: agendas
    url: https://x.gov/a
    access: feed
  - id: ${at200}
    government: city-of-akron
    records: agendas
    url: https://x.gov/b
    access: feed
`);
    expect(lines).toEqual(["cat.yaml:8:9: sources[0].id: must be at most 200 characters long"]);
  });

  it("refuses a file with nothing in it (empty, or only comments), and accepts one that says it lists none", () => {
    const said =
      "cat.yaml:1:1: : the file lists nothing: a catalog lists governments and sources (write `sources: []` for a file that means to list none)";
    expect(problems("")).toEqual([said]);
    expect(problems("\n# to do\n\n")).toEqual([said]);
    // A document marker or a bare null holds nothing either (a file cut to its first line).
    for (const text of [
      "---\n",
      "--- # c\n",
      "---\n...\n",
      "%YAML 1.2\n---\n",
      "~\n",
      "null\n",
      "{}\n",
    ])
      expect(problems(text), JSON.stringify(text)).toEqual([said]);
    // Read whole as well as piece by piece (the same answer either way).
    const dir = mkdtempSync(join(tmpdir(), "nor-empty-cat-"));
    const file = join(dir, "empty.yaml");
    writeFileSync(file, "");
    expect(() => loadCatalog([file])).toThrow(/empty\.yaml:1:1: the file lists nothing/);
    expect(parseCatalog("sources: []\n", "none.yaml").sources).toEqual([]);
  });

  it("refuses a file whose top level is a list (or a lone value), naming the file, the line and the mapping of sections it expects", () => {
    const expects =
      "expected a mapping of the sections `governments:`, `sources:`, `leads:`, each a list of entries (a list of sources goes under `sources:`; see docs/catalog.md)";
    const list = "# sources, but the key left out\n\n- id: s\n  government: g\n";
    expect(problems(list)).toEqual([`cat.yaml:3:1: : the file's top level is a list; ${expects}`]);
    expect(problems("sources\n")).toEqual([
      `cat.yaml:1:1: : the file's top level is a text; ${expects}`,
    ]);
    expect(problems("42\n")).toEqual([
      `cat.yaml:1:1: : the file's top level is a number; ${expects}`,
    ]);
    // Read from a file (piece by piece where it can be), the same words.
    const dir = mkdtempSync(join(tmpdir(), "nor-list-cat-"));
    try {
      const file = join(dir, "list.yaml");
      writeFileSync(file, list);
      expect(() => loadCatalog([file])).toThrow(
        `list.yaml:3:1: the file's top level is a list; ${expects}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses control characters a double-quoted YAML string can write, naming where", () => {
    const lines = problems(`governments:
  - { id: g, name: "Village\\0 of G", kind: village, county: Franklin }
sources:
  - id: s
    government: g
    records: agendas
    url: https://x.gov/a
    access: feed
    notes: "first line\\u0085next"
  - id: t
    government: g
    records: agendas
    url: https://x.gov/b
    access: feed
    notes: "tab\\there, and a
      folded line"
`);
    expect(lines).toEqual([
      'cat.yaml:2:20: governments[0].name: a control character (U+0000) in "Village\\u0000 of G": catalog text must be printable',
      'cat.yaml:9:12: sources[0].notes: a control character (U+0085) in "first line\\u0085next": catalog text must be printable',
    ]);
    // A block scalar's lines and a key holding the character are said on one line, escaped.
    const odd = problems(`governments:
  - { id: g, name: G, kind: village, county: Franklin }
sources:
  - id: s
    government: g
    records: agendas
    url: https://x.gov/a
    access: feed
    notes: |
      first line
      bell \u0007 here
  - id: t
    government: g
    records: agendas
    url: https://x.gov/b
    access: feed
    "no\\u001btes": x
`);
    expect(odd[0]).toBe(
      'cat.yaml:9:12: sources[0].notes: a control character (U+0007) in "first line\\nbell \\u0007 here\\n": catalog text must be printable',
    );
    expect(odd.some((l) => l.includes("\u001b"))).toBe(false);
    expect(odd).toContain(
      'cat.yaml:17:5: sources[1].no\\u001btes: a control character (U+001B) in "no\\u001btes": catalog text must be printable',
    );
    // Read in pieces (a long catalog): the same words, the item's own index and line.
    const many = Array.from(
      { length: 120 },
      (_, i) =>
        `  - id: s${i}\n    government: g\n    records: agendas\n    url: https://x.gov/${i}\n    access: feed\n    ${i === 101 ? 'name: "bell\\x07"' : "name: plain"}\n`,
    ).join("");
    expect(
      problems(
        `governments:\n  - { id: g, name: G, kind: village, county: Franklin }\nsources:\n${many}`,
      ),
    ).toEqual([
      `cat.yaml:${3 + 101 * 6 + 6}:11: sources[101].name: a control character (U+0007) in "bell\\u0007": catalog text must be printable`,
    ]);
  });

  it("refuses page access without a recipe or platform, and form access without a form", () => {
    const lines = problems(`${GOV}sources:
  - id: a
    government: city-of-akron
    records: agendas
    url: https://x.gov/a
    access: page
  - id: b
    government: city-of-akron
    records: permits
    url: https://x.gov/b
    access: form
    extract: { items: tr }
    alternates:
      - { access: api, url: "https://x.gov/api" }
`);
    expect(lines).toEqual([
      "cat.yaml:12:13: sources[0].access: page access needs an `extract` recipe or a `platform`",
      "cat.yaml:17:13: sources[1].access: form access needs a `form` spec",
      "cat.yaml:20:19: sources[1].alternates[0].access: api access needs an `api` field mapping or a `platform`",
    ]);
  });

  it("refuses duplicate ids and unknown governments, across files, naming both places", () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-cat-"));
    const a = join(dir, "a.yaml");
    const b = join(dir, "b.yaml");
    writeFileSync(
      a,
      `${GOV}sources:\n  - { id: s1, government: city-of-akron, records: bids, url: "https://x.gov/", access: feed }\n`,
    );
    writeFileSync(
      b,
      `${GOV}sources:\n  - { id: s1, government: city-of-akron, records: bids, url: "https://x.gov/", access: feed }\n  - { id: s2, government: city-of-kent, records: bids, url: "https://x.gov/", access: feed }\n`,
    );
    let err: CatalogError | undefined;
    try {
      loadCatalog([a, b]);
    } catch (e) {
      err = e as CatalogError;
    }
    expect(err?.message).toContain(
      `${b}:2:9: governments[0].id: duplicate government id "city-of-akron" (first at ${a}:2:9)`,
    );
    expect(err?.message).toContain(
      `${b}:8:11: sources[0].id: duplicate source id "s1" (first at ${a}:8:11)`,
    );
    expect(err?.message).toContain(
      `${b}:9:27: sources[1].government: unknown government "city-of-kent"`,
    );
    // Split across files without duplicates, the references resolve.
    writeFileSync(
      b,
      `sources:\n  - { id: s2, government: city-of-akron, records: bids, url: "https://x.gov/", access: feed }\n`,
    );
    expect(loadCatalog([a, b]).sources.map((s) => s.id)).toEqual(["s1", "s2"]);
  });

  it("reports YAML syntax errors with their position (an unclosed quote where it opens), and a file it cannot read by its name alone", () => {
    expect(problems("governments:\n  - id: a\n   name: [unclosed\n")[0]).toMatch(
      /^cat\.yaml:3:\d+: : YAML: /,
    );
    expect(problems("governments:\n  - id: a\n  - id: a\n    id: b\n")[0]).toMatch(
      /^cat\.yaml:4:5: : YAML: Map keys must be unique/,
    );
    // A quote never closed is said where it opens, not where the text ends.
    expect(
      problems('governments:\n  - id: a\n    name: "unterminated\n    kind: city\nsources: []\n\n'),
    ).toEqual(['cat.yaml:3:11: : YAML: Missing closing "quote (the quoted value opens here)']);
    expect(
      problems(
        "governments:\n  - { id: a, name: 'fine', kind: city }\n  - { id: b, name: 'it''s, kind: city }\n",
      )[0],
    ).toBe("cat.yaml:3:20: : YAML: Missing closing 'quote (the quoted value opens here)");
    // A second document is said in the catalog's words, where it starts.
    expect(
      problems(
        "---\ngovernments:\n  - { id: a, name: A, kind: city, county: Franklin }\nsources: []\n---\nsources: []\n",
      ),
    ).toEqual([
      "cat.yaml:5:1: : YAML: a second YAML document starts here (a second `---`): a catalog file is one document; put its entries in the first, or in a file of their own",
    ]);
    expect(() => loadCatalog(["/nonexistent/cat.yaml"])).toThrow(
      /^catalog has 1 problem:\n\/nonexistent\/cat\.yaml: no such file$/,
    );
  });

  it("a file named twice (or through a link) is said as that, not as each id a duplicate of itself", () => {
    const d = mkdtempSync(join(tmpdir(), "nor-twice-"));
    try {
      const file = join(d, "cat.yaml");
      writeFileSync(
        file,
        "governments:\n  - { id: g1, name: G, kind: village, county: Franklin }\nsources: []\n",
      );
      symlinkSync(file, join(d, "link.yaml"));
      for (const second of [file, join(d, "link.yaml")]) {
        expect(() => loadCatalog([file, second])).toThrow(
          `catalog has 1 problem:\n${second}: the same file as ${file}, named twice: name each catalog file once`,
        );
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it("refuses non-http(s) schemes anywhere a URL goes", () => {
    const lines = problems(`governments:
  - { id: g, name: G, kind: city, website: "ftp://g.gov/" }
sources:
  - { id: s, government: g, records: bids, url: "javascript:alert(1)", access: feed }
`);
    expect(lines).toEqual([
      expect.stringMatching(/^cat\.yaml:2:44: governments\[0\]\.website: must be an absolute http/),
      expect.stringMatching(/^cat\.yaml:4:49: sources\[0\]\.url: must be an absolute http/),
    ]);
  });
});

describe("where a problem is said", () => {
  it("a duplicate written as an alias (`- *a`) is said where the alias is, not where the list begins", () => {
    const lines = problems(`governments:
  - &a { id: g, name: G, kind: city, county: Franklin }
  - *a
sources: []
`);
    expect(lines).toEqual([
      expect.stringMatching(/^cat\.yaml:3:5: governments\[1\]\.id: duplicate government id "g"/),
    ]);
  });

  it("a key that is itself a list or mapping is said as a problem, and nothing else is written to stderr (no Node warning in a night's JSON lines)", () => {
    const warned = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const lines = problems(`${GOV}    ? [x, y]
    : z
`);
      expect(lines).toEqual([
        expect.stringMatching(/^cat\.yaml:\d+:\d+: governments\[0\]\.\[ x, y \]: unknown key/),
      ]);
      expect(warned).not.toHaveBeenCalled();
    } finally {
      warned.mockRestore();
    }
  });

  it("aliases that expand too far (a billion laughs) are said at the alias where the parser stopped, not at the file's first line", () => {
    // yaml counts what each alias expands to and stops past 100: at the ninth `*b` (line 3,
    // column 40; found by yaml's own Alias.resolve, watched), not at line 1.
    const lines = problems(`a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: [*c, *c, *c]
`);
    expect(lines).toEqual([
      "cat.yaml:3:40: : YAML: Excessive alias count indicates a resource exhaustion attack",
    ]);
  });
});

describe("catalog platform names", () => {
  it("refuses a platform no preset answers to, in a source and in its alternates", () => {
    const lines = problems(`${GOV}sources:
  - id: s
    government: city-of-akron
    records: agendas
    url: https://x.gov/
    access: page
    platform: civicplus-agendacenter
    alternates:
      - { access: page, url: "https://x.gov/b", platform: no-such-vendor }
`);
    expect(lines).toEqual([
      expect.stringMatching(
        /^cat\.yaml:15:59: sources\[0\]\.alternates\[0\]\.platform: unknown platform "no-such-vendor" \(known: .*civicplus-agendacenter/,
      ),
    ]);
  });
});

describe("access, when the catalog leaves it out", () => {
  const way = (extra: string) =>
    parseCatalog(
      `${GOV}sources:\n  - { id: s, government: city-of-akron, records: agendas, url: "https://x.gov/list"${extra} }\n`,
      "cat.yaml",
    ).sources[0];

  it("P4: is inferred: a recipe reads a page, a platform its own way, a form spec a form, else a feed", () => {
    expect(way(", extract: { items: li }")?.access).toBe("page");
    expect(way(", platform: civicplus-rss")?.access).toBe("feed");
    expect(way(", platform: boarddocs")?.access).toBe("api");
    expect(way(", form: { fields: {} }, extract: { items: tr }")?.access).toBe("form");
    expect(way(', api: { items: "value", title: "t" }')?.access).toBe("api");
    expect(way(', download: { title: "Title" }')?.access).toBe("download");
    // A CSV's separator may be a control character (the unit separator): it is not text.
    expect(way(', download: { title: "Title", delimiter: "\\x1f" }')?.access).toBe("download");
    expect(way("")?.access).toBe("feed");
    // What is written wins, and alternates are inferred the same way.
    expect(way(", access: page, extract: { items: li }")?.access).toBe("page");
    const s = way(', alternates: [{ url: "https://x.gov/rss" }]');
    expect(s?.alternates[0]?.access).toBe("feed");
  });

  it("reports a required field left out as missing, whatever its type", () => {
    const lines = problems(`governments:
  - { id: g, name: G }
sources:
  - { id: s, government: g, url: "https://x.gov/" }
`);
    expect(lines).toEqual([
      "cat.yaml:2:5: governments[0].kind: missing required field `kind`",
      "cat.yaml:4:5: sources[0].records: missing required field `records`",
    ]);
  });
});

describe("a government's timezone", () => {
  it("timezone: a government's IANA zone goes to every way of its sources, across files; absent is left absent (America/New_York)", () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-cat-tz-"));
    const govs = join(dir, "govs.yaml");
    const srcs = join(dir, "srcs.yaml");
    writeFileSync(
      govs,
      `${GOV}  - id: city-of-gary
    name: City of Gary
    kind: city
    timezone: America/Chicago
`,
    );
    writeFileSync(
      srcs,
      `sources:
  - id: gary-calendar
    government: city-of-gary
    records: meetings
    platform: legistar-html
    url: https://gary.legistar.com/Calendar.aspx
    alternates:
      - { access: feed, url: "https://gary.example.gov/feed.xml" }
  - id: akron-feed
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/feed.xml
`,
    );
    const cat = loadCatalog([govs, srcs]);
    const gary = cat.sources.find((s) => s.id === "gary-calendar")!;
    expect(gary.timezone).toBe("America/Chicago");
    expect(gary.alternates[0]!.timezone).toBe("America/Chicago");
    expect(cat.governments.find((g) => g.id === "city-of-gary")!.timezone).toBe("America/Chicago");
    const akron = cat.sources.find((s) => s.id === "akron-feed")!;
    expect("timezone" in akron).toBe(false);
  });

  it("timezone: a zone that is not a real IANA zone is refused, naming file:line and the field", () => {
    const lines = (zone: string) =>
      problems(
        `governments:
  - id: village-of-x
    name: Village of X
    kind: village
    timezone: ${zone}
`,
        "tz.yaml",
      );
    for (const zone of ["America/NewYork", "EST", "mars/olympus", "Mars/Olympus"]) {
      expect(lines(zone)).toEqual([
        "tz.yaml:5:15: governments[0].timezone: must be an IANA time zone such as America/New_York or America/Chicago (an Area/City name, not an abbreviation like EST)",
      ]);
    }
    // A real zone in the wrong case is named as IANA writes it.
    expect(lines("america/new_york")).toEqual([
      "tz.yaml:5:15: governments[0].timezone: must be written as IANA writes it, America/New_York (time zone names are case-sensitive)",
    ]);
    // A source may not set a zone of its own: it is its government's.
    expect(
      problems(
        `${GOV}sources:
  - id: akron-feed
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/feed.xml
    timezone: America/Chicago
`,
      ),
    ).toEqual([
      "cat.yaml:12:5: sources[0].timezone: unknown key (check the spelling; see docs/catalog.md)",
    ]);
  });

  it("timezone: real zones are accepted, links and UTC included", () => {
    for (const zone of ["America/New_York", "America/Indiana/Indianapolis", "US/Eastern", "UTC"]) {
      const cat = parseCatalog(
        `governments:\n  - { id: x, name: X, kind: other, timezone: "${zone}" }\n`,
        "ok.yaml",
      );
      expect(cat.governments[0]!.timezone).toBe(zone);
    }
  });
});

describe("a source's backfill.until", () => {
  const withUntil = (dates: readonly string[]) =>
    `${GOV}sources:\n${dates
      .map(
        (d, i) => `  - id: s${i}
    government: city-of-akron
    records: agendas
    url: https://x.gov/${i}
    access: feed
    backfill: { pagesPerNight: 3, until: "${d}" }
`,
      )
      .join("")}`;

  it("P7: a date that is no day of the calendar is refused, naming file:line:col, the field, the form and what is impossible", () => {
    const dates = [
      "2026-31-01",
      "2026-13-45",
      "2026-02-30",
      "0000-00-00",
      "2025-02-29",
      "2026-04-31",
      "2026-01-00",
      "0000-01-01",
    ];
    const at = (i: number) => `cat.yaml:${13 + 6 * i}:42: sources[${i}].backfill.until`;
    expect(problems(withUntil(dates))).toEqual([
      `${at(0)}: must be a date written YYYY-MM-DD: month 31 is impossible (a month is 01 to 12; 2026-01-31, if the day came first)`,
      `${at(1)}: must be a date written YYYY-MM-DD: month 13 is impossible (a month is 01 to 12)`,
      `${at(2)}: must be a date written YYYY-MM-DD: day 30 is impossible in February 2026 (it has 28 days: 01 to 28)`,
      `${at(3)}: must be a date written YYYY-MM-DD: month 00 is impossible (a month is 01 to 12)`,
      `${at(4)}: must be a date written YYYY-MM-DD: day 29 is impossible in February 2025 (it has 28 days: 01 to 28)`,
      `${at(5)}: must be a date written YYYY-MM-DD: day 31 is impossible in April 2026 (it has 30 days: 01 to 30)`,
      `${at(6)}: must be a date written YYYY-MM-DD: day 00 is impossible in January 2026 (it has 31 days: 01 to 31)`,
      `${at(7)}: must be a date written YYYY-MM-DD: year 0000 is impossible (the calendar starts at 0001)`,
    ]);
  });

  it("P7: real dates are accepted (a leap day, a month's last day); another form is refused as before", () => {
    const cat = parseCatalog(withUntil(["2024-02-29", "2026-12-31", "2000-02-29"]), "ok.yaml");
    expect(cat.sources.map((s) => s.backfill.until)).toEqual([
      "2024-02-29",
      "2026-12-31",
      "2000-02-29",
    ]);
    expect(problems(withUntil(["2026-1-5", "1900-02-29"]))).toEqual([
      "cat.yaml:13:42: sources[0].backfill.until: must be a date written YYYY-MM-DD",
      "cat.yaml:19:42: sources[1].backfill.until: must be a date written YYYY-MM-DD: day 29 is impossible in February 1900 (it has 28 days: 01 to 28)",
    ]);
  });
});
