import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import type { ValidatorStore } from "../../src/night/reader.js";
import { wayReader } from "../../src/night/way-reader.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { buildFormRequest } from "../../src/sources/extract/form.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

/**
 * P5 with the one body decoder: a county's ASP.NET search form written in windows-1252 (named
 * only by its Content-Type) is read in windows-1252 and filled in and posted back in it, as a
 * visitor's browser does, on the first submission and on the pager's postback; its result
 * pages are read in it too.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NONE: ValidatorStore = { get: async () => undefined };
const HISTORY = { reading: true, unreachedLast: false, recentOutcomes: [], recordsKnown: 0 };
const CP1252 = "text/html; charset=windows-1252";
const GRID = "ctl00$Main$gvResults";

/** A Latin string as windows-1252 bytes (é 0xE9, – 0x96, “ 0x93, ” 0x94, É 0xC9). */
function cp1252(s: string): Uint8Array {
  const high: Record<string, number> = { "\u2013": 0x96, "\u201c": 0x93, "\u201d": 0x94 };
  return new Uint8Array([...s].map((c) => high[c] ?? c.charCodeAt(0)));
}

/**
 * The board's name ends in “…É” (0xC9 0x94 is also valid UTF-8, so a page read as UTF-8
 * says “CAFɔ); the document type ends in “é –” (0xE9 0x20 0x96, never UTF-8).
 */
const BOARD = "\u201cCAF\u00c9\u201d Board";
const DOCTYPE = "Caf\u00e9 \u2013 Minutes";

function page(rows: string, pager: string): Uint8Array {
  return cp1252(`<!DOCTYPE html><html><head><title>Records</title></head><body>
<form method="post" action="./Search.aspx" id="aspnetForm">
<input type="hidden" name="__VIEWSTATE" value="VS1" />
<input type="hidden" name="ctl00$Main$hfBoard" value="${BOARD}" />
<select name="ctl00$Main$ddlType"><option value="">All</option><option value="${DOCTYPE}" selected="selected">${DOCTYPE}</option></select>
<input type="submit" name="ctl00$Main$btnSearch" value="Search" />
<table id="ctl00_Main_gvResults">${rows}<tr><td colspan="2">${pager}</td></tr></table>
</form></body></html>`);
}

const row = (n: number) =>
  `<tr class="row"><td><a href="/Docs/M${n}.pdf">${DOCTYPE} ${n}</a></td><td>10/${n}/2026</td></tr>`;
const toPage = (n: number) => `<a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a>`;

function source(url: string): Source {
  return {
    id: "minutes",
    government: "g",
    records: "minutes",
    url,
    access: "form",
    form: { submit: "ctl00$Main$btnSearch", pager: GRID },
    extract: { items: "tr.row", title: "td:first-child a", date: "td:nth-child(2)" },
    alternates: [],
    backfill: { pagesPerNight: 1 },
    confirmed: false,
  };
}

describe("a windows-1252 search form, read and answered in windows-1252 (P5)", () => {
  it("P5: the form is posted in the page's encoding, the pager too, and the records read in it", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/Search.aspx", (req, res, { seen }) => {
      res.writeHead(200, { "content-type": CP1252 });
      if (req.method === "GET") return void res.end(page("", ""));
      res.end(seen.body.includes("Page%242") ? page(row(2), "") : page(row(1), toPage(2)));
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader: wayReader, validators: NONE };
    const result = await checkSource(ctx, source(s.url("/Search.aspx")), HISTORY as never);
    expect(result.outcome.kind).toBe("ok");

    const posts = s.hits("/Search.aspx").filter((q) => q.method === "POST");
    expect(posts).toHaveLength(2);
    // What a browser sends for this page: its own bytes, percent-encoded.
    const board = "ctl00%24Main%24hfBoard=%93CAF%C9%94+Board";
    const doctype = "ctl00%24Main%24ddlType=Caf%E9+%96+Minutes";
    expect(posts[0]!.body).toContain(board);
    expect(posts[0]!.body).toContain(doctype);
    expect(posts[0]!.body).toContain("ctl00%24Main%24btnSearch=Search");
    expect(posts[1]!.body).toContain(board);
    expect(posts[1]!.body).toContain("__EVENTARGUMENT=Page%242");
    expect(result.records.map((r) => r.title)).toEqual([`${DOCTYPE} 1`, `${DOCTYPE} 2`]);
  });

  it("P5: a form's accept-charset, when it names one, is used over the page's encoding (as a browser does)", () => {
    const form = (attr: string) =>
      cp1252(
        `<form method="get" action="/s" ${attr}><input type="hidden" name="t" value="${DOCTYPE}"></form>`,
      );
    const url = "https://county.example.gov/Search.aspx";
    const query = (attr: string) =>
      new URL(buildFormRequest(form(attr), url, { fields: {} }, 0, CP1252).url).search;
    expect(query("")).toBe("?t=Caf%E9+%96+Minutes");
    expect(query('accept-charset="UTF-8"')).toBe("?t=Caf%C3%A9+%E2%80%93+Minutes");
    expect(query('accept-charset="x-unknown iso-8859-1"')).toBe("?t=Caf%E9+%96+Minutes");
  });
});
