/**
 * Find by meaning (P6: records come from the list itself, so the list must be the right one):
 * every real fixture in test/fixtures/platforms, changed the ways other governments' pages
 * on the same platform differ from it, must give the same records (ids, titles, dates,
 * links) — or the preset must say it cannot read the page (`unreadable`, stored by the night
 * as extract-error with the reason). Never fewer records silently.
 *
 * Every mutation here is one a preset can read by meaning, so each must give the same
 * records; only "headers renamed to words the preset does not know" may be unreadable, and
 * for the presets that read cells by their header it must be (never a guess by position).
 *
 * The mutations are generated from each fixture (a new fixture in a preset's folder is
 * mutated too): pages are changed with cheerio — columns reordered with their headers, a
 * second, smaller list of the same platform before and after the main one, a list of the same
 * platform with another record shape, unrelated tables, navigation and a site-search form,
 * the list wrapped in more markup, optional columns dropped, headers ending in a colon,
 * scripts and styles inside cells; JSON answers get their keys
 * reordered, fields added and optional ones dropped; feeds their elements reordered; every
 * answer a byte-order mark.
 */
import { readdirSync, statSync } from "node:fs";
import type { CheerioAPI } from "cheerio";
import * as cheerio from "cheerio";
import { type AnyNode, cloneNode, type Document, type Element } from "domhandler";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../../src/sources/catalog/load.js";
import { getPlatform } from "../../../src/sources/platforms/index.js";
import type { PlatformRequest } from "../../../src/sources/platforms/types.js";
import type { ExtractedRecord } from "../../../src/sources/record.js";
import { FIXTURES, fixture, fixtureSource } from "./helpers.js";

/** Fixture folders and their preset (folders without one are recipes, not presets). */
const PRESET_OF: Record<string, string> = {
  boarddocs: "boarddocs",
  civicclerk: "civicclerk",
  "civicplus-agendacenter": "civicplus-agendacenter",
  "civicplus-bids": "civicplus-bids",
  "civicplus-rss": "civicplus-rss",
  escribe: "escribe",
  granicus: "granicus",
  "granicus-opencities": "granicus-opencities",
  "icompass-diligent": "icompass",
  iworq: "iworq",
  "legistar-api": "legistar-api",
  "legistar-html": "legistar-html",
  "municode-meetings": "municode-meetings",
  novusagenda: "novusagenda",
  "onbase-agendaonline": "onbase-agendaonline",
  primegov: "primegov",
};
const NO_PRESET = new Set(["accela", "tyler", "ohio-city-html", "ohio-county-html"]);

/** What the mutations know of a preset's page: the list, a row, the columns that give nothing. */
interface HtmlSpec {
  /** The element(s) holding the records; the one with most rows is "the main one". */
  list?: string;
  /** One record inside the list. */
  row?: string;
  /** Header text of columns no record field comes from. */
  optional?: RegExp;
  /** The section headings the lists are grouped under. */
  heading?: string;
  /** A list of the same platform holding another kind of record. */
  otherShape?: string;
}

const LEGISTAR_LEGISLATION = `
<div class="RadGrid RadGrid_Metro" id="ctl00_ContentPlaceHolder1_gridLegislation">
<table class="rgMasterTable" id="ctl00_ContentPlaceHolder1_gridLegislation_ctl00">
<thead><tr><th class="rgHeader">File #</th><th class="rgHeader">Type</th><th class="rgHeader">Status</th><th class="rgHeader">Title</th></tr></thead>
<tbody>
<tr class="rgRow"><td><a href="LegislationDetail.aspx?ID=5001&amp;GUID=AAAA">0101-2026</a></td><td>Ordinance</td><td>Passed</td><td>To authorize the Director of Public Service to enter into contract</td></tr>
<tr class="rgAltRow"><td><a href="LegislationDetail.aspx?ID=5002&amp;GUID=BBBB">0102-2026</a></td><td>Resolution</td><td>Adopted</td><td>To recognize the week of March 2 as Public Works Week</td></tr>
</tbody></table></div>`;

const NOVUS_ITEMS = `
<table class="rgMasterTable" id="SearchAgendasMeetings_radGridAttachments_ctl00">
<thead><tr><th class="rgHeader">Date</th><th class="rgHeader">Title</th><th class="rgHeader">Category</th></tr></thead>
<tbody><tr class="rgRow" id="SearchAgendasMeetings_radGridAttachments_ctl00__0"><td>01/05/22</td><td>Staff report: water rates</td><td>Consent</td></tr></tbody></table>`;

const GRANICUS_DOCUMENTS = `
<h2>Documents</h2>
<table class="listingTable" summary="Documents">
<thead><tr><th class="listHeader" scope="col">Name</th><th class="listHeader" scope="col">Description</th></tr></thead>
<tbody><tr class="listingRow"><td class="listItem">Budget book</td><td class="listItem"><a href="//lakewales.granicus.com/DocumentViewer.php?file=lakewales_budget.pdf">Download</a></td></tr></tbody></table>`;

const ONBASE_DOCUMENTS = `
<table class="table table-hover"><thead><tr><th>Document</th><th>Posted</th></tr></thead>
<tbody><tr class="document-row" data-document-id="77"><td><a href="/OnBaseAgendaOnline/Documents/ViewDocument?id=77">Annual report</a></td><td>1/2/2019</td></tr></tbody></table>`;

const MUNICODE_NEWS = `
<table class="views-table cols-2"><thead><tr><th>Title</th><th>Posted</th></tr></thead>
<tbody><tr><td data-th="Title"><a href="/news/water-main">Water main work</a></td><td data-th="Posted">08/02/2026</td></tr></tbody></table>`;

const AGENDACENTER_FILTER = `
<div class="filterMenu"><h2>Categories</h2><ul>
<li><label><input type="checkbox" name="chkCategoryID" value="1">Planning Commission</label></li>
<li><label><input type="checkbox" name="chkCategoryID" value="2">Parks Board</label></li></ul></div>`;

const HTML: Record<string, HtmlSpec> = {
  "legistar-html": {
    list: "table.rgMasterTable",
    row: "tr.rgRow, tr.rgAltRow",
    optional: /location|accessible|video|analysis|amendments/i,
    otherShape: LEGISTAR_LEGISLATION,
  },
  novusagenda: {
    list: "table[id$='radGridMeetings_ctl00']",
    row: "tr[id*='radGridMeetings_ctl00__']",
    optional: /location/i,
    otherShape: NOVUS_ITEMS,
  },
  "civicplus-agendacenter": {
    list: "div.listing",
    row: "tr.catAgendaRow",
    optional: /^media$/i,
    heading: "div.listing > h2",
    otherShape: AGENDACENTER_FILTER,
  },
  granicus: { list: "table.listingTable", row: "tr.listingRow", otherShape: GRANICUS_DOCUMENTS },
  "municode-meetings": {
    list: "table:has(td.meeting), table:has(td[data-th='Meeting'])",
    row: "tr:has(> td.meeting), tr:has(> td[data-th='Meeting'])",
    optional: /venue|video/i,
    otherShape: MUNICODE_NEWS,
  },
  "onbase-agendaonline": {
    list: "table:has(tr.meeting-row)",
    row: "tr.meeting-row",
    optional: /meeting info/i,
    otherShape: ONBASE_DOCUMENTS,
  },
  iworq: { list: "div.record-table", row: "tr:has(a[href*='/permit/']), div.record-row" },
  "civicplus-bids": { list: "div.bidItems" },
  boarddocs: {},
  "civicplus-rss": {},
};

/** JSON keys no record field comes from (dropped by the "optional fields" mutation). */
const OPTIONAL_KEYS: Record<string, string[]> = {
  boarddocs: ["current", "preliveoak", "unid"],
  civicclerk: ["eventDescription", "eventLocation", "categoryId", "endDateTime"],
  escribe: ["Description", "Location", "HasVideo", "ShareUrl", "FormattedStart"],
  "granicus-opencities": ["Day", "Month"],
  icompass: ["MeetingLocation", "VideoIcon", "ExternalCalendar", "FormattedMeetingDate"],
  "legistar-api": ["EventComment", "EventLocation", "EventVideoPath", "EventAgendaStatusName"],
  primegov: ["videoUrl", "swagitId", "zoomMeetingLink", "meetingState"],
};

const NAV = `
<header class="mut-header"><nav aria-label="Main"><ul>
<li><a href="/">Home</a></li><li><a href="/Calendar.aspx">Calendar</a></li>
<li><a href="/AgendaCenter">Agendas &amp; Minutes</a></li><li><a href="/Bids.aspx">Bids</a></li></ul></nav>
<form id="site-search" action="/search" method="get"><input type="text" name="q" value="">
<input type="hidden" name="scope" value="site"><button type="submit">Search</button></form></header>
<table class="mut-layout"><tr><td><a href="/about">About</a></td><td>Call 555-0100</td></tr></table>
<table class="mut-staff"><thead><tr><th>Name</th><th>Title</th><th>Date</th></tr></thead>
<tbody><tr><td>Jane Roe</td><td>Clerk of Council</td><td>1/2/2020</td></tr>
<tr><td>John Doe</td><td>Deputy Clerk</td><td>3/4/2021</td></tr></tbody></table>`;

const FOOTER = `
<footer class="mut-footer"><table><thead><tr><th>Office</th><th>Hours</th></tr></thead>
<tbody><tr><td>City Hall</td><td>8:00 AM - 5:00 PM</td></tr></tbody></table>
<nav aria-label="Footer"><a href="/privacy">Privacy</a> <a href="/accessibility">Accessibility</a></nav></footer>`;

// ---------------------------------------------------------------- table helpers

function ownRows($: CheerioAPI, table: Element): Element[] {
  return $(table)
    .children("tr, thead, tbody, tfoot")
    .toArray()
    .flatMap((c) => (c.tagName === "tr" ? [c] : $(c).children("tr").toArray()));
}

function cellsOf($: CheerioAPI, tr: Element): Element[] {
  return $(tr).children("th, td").toArray();
}

/** The header row: the first own row with th cells. */
function headerOf($: CheerioAPI, table: Element): Element | undefined {
  return ownRows($, table).find((tr) => $(tr).children("th").length > 0);
}

/** Rows that line up with the header cell for cell (pagers and "no records" rows span). */
function alignedRows($: CheerioAPI, table: Element): Element[] {
  const head = headerOf($, table);
  if (!head) return [];
  const width = cellsOf($, head).length;
  return ownRows($, table).filter((tr) => {
    const cells = cellsOf($, tr);
    return cells.length === width && cells.every((c) => Number($(c).attr("colspan") ?? 1) === 1);
  });
}

function tablesIn($: CheerioAPI, list: Element): Element[] {
  const el = $(list);
  return (el.is("table") ? el : el.find("table")).toArray().filter((t) => headerOf($, t));
}

/** Reverses the columns: each header moves with its column. */
function reverseColumns($: CheerioAPI, table: Element): void {
  for (const tr of alignedRows($, table)) $(tr).append(cellsOf($, tr).reverse());
}

function dropColumns($: CheerioAPI, table: Element, optional: RegExp): number {
  const head = headerOf($, table);
  if (!head) return 0;
  const drop = new Set<number>();
  cellsOf($, head).forEach((th, i) => {
    if (optional.test($(th).text().replace(/\s+/g, " ").trim())) drop.add(i);
  });
  if (drop.size === 0) return 0;
  for (const tr of alignedRows($, table))
    cellsOf($, tr).forEach((c, i) => {
      if (drop.has(i)) $(c).remove();
    });
  return drop.size;
}

function lists($: CheerioAPI, spec: HtmlSpec): Element[] {
  if (!spec.list) return [];
  return $(spec.list)
    .toArray()
    .filter((n): n is Element => n.type === "tag");
}

/** The list with the most records on the page. */
function mainList($: CheerioAPI, spec: HtmlSpec): Element | undefined {
  let best: Element | undefined;
  let most = -1;
  for (const l of lists($, spec)) {
    const n = spec.row ? $(l).find(spec.row).length : 0;
    if (n > most) {
      most = n;
      best = l;
    }
  }
  return best;
}

/** A smaller copy of the main list: its first two records, its ids prefixed. */
function smallerCopy($: CheerioAPI, spec: HtmlSpec, main: Element): cheerio.Cheerio<AnyNode> {
  const copy = $(main).clone();
  if (spec.row) copy.find(spec.row).slice(2).remove();
  copy
    .find("[id]")
    .addBack("[id]")
    .each((_, el) => {
      $(el).attr("id", `small_${$(el).attr("id")}`);
    });
  return copy;
}

// ---------------------------------------------------------------- the mutations

type Mutation = {
  name: string;
  apply(body: Uint8Array): Uint8Array | undefined;
  /** The page may then honestly be unreadable (it cannot tell which column is which). */
  mayBeUnreadable?: boolean;
};

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

function withBom(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length + 3);
  out.set(BOM);
  out.set(b, 3);
  return out;
}

/**
 * Each fixture page parsed once (parse5, as `cheerio.load` parses it); every HTML mutation edits
 * a deep copy of that document, so each mutated page is the one a fresh parse would edit. Only
 * the page of the fixture under test is kept (its mutations run one after another), not every
 * fixture's tree for the whole file.
 */
let parsed: { body: Uint8Array; page: Document } | undefined;

/**
 * `applies` false: the preset's spec names nothing the mutation changes (no list, no optional
 * column, no other record shape), so `edit` could only say so; the page is then not copied.
 */
function html(edit: ($: CheerioAPI) => boolean | undefined, applies = true) {
  return (body: Uint8Array): Uint8Array | undefined => {
    if (!applies) return undefined;
    if (parsed?.body !== body)
      parsed = { body, page: cheerio.load(text(body)).root()[0] as Document };
    const $ = cheerio.load(cloneNode(parsed.page, true));
    return edit($) === false ? undefined : enc($.html());
  };
}

function htmlMutations(spec: HtmlSpec): Mutation[] {
  return [
    {
      name: "columns reordered (headers move with them)",
      apply: html(($) => {
        const ts = lists($, spec).flatMap((l) => tablesIn($, l));
        for (const t of ts) reverseColumns($, t);
        return ts.length > 0;
      }, spec.list !== undefined),
    },
    {
      name: "optional columns dropped",
      apply: html(
        ($) => {
          if (!spec.optional) return false;
          let n = 0;
          for (const t of lists($, spec).flatMap((l) => tablesIn($, l)))
            n += dropColumns($, t, spec.optional);
          return n > 0;
        },
        spec.list !== undefined && spec.optional !== undefined,
      ),
    },
    {
      name: "a second, smaller list of the platform before the main one",
      apply: html(($) => {
        const main = mainList($, spec);
        if (!main) return false;
        $(main).before(smallerCopy($, spec, main));
        return true;
      }, spec.list !== undefined),
    },
    {
      name: "a second, smaller list of the platform after the main one",
      apply: html(($) => {
        const main = mainList($, spec);
        if (!main) return false;
        $(main).after(smallerCopy($, spec, main));
        return true;
      }, spec.list !== undefined),
    },
    {
      name: "a list of the platform with another record shape before and after",
      apply: html(
        ($) => {
          const main = mainList($, spec);
          if (!main || !spec.otherShape) return false;
          $(main).before(spec.otherShape);
          $(main).after(spec.otherShape);
          return true;
        },
        spec.list !== undefined && spec.otherShape !== undefined,
      ),
    },
    {
      name: "unrelated tables, navigation and a site-search form",
      apply: html(($) => {
        const body = $("body");
        if (body.length === 0) return false;
        body.prepend(NAV);
        body.append(FOOTER);
        return true;
      }),
    },
    {
      name: "the list and its headings wrapped in more markup",
      apply: html(($) => {
        const ls = lists($, spec);
        if (ls.length === 0) return false;
        for (const l of ls)
          $(l).wrap(
            '<div class="mut-outer"><section class="mut-section"><div></div></section></div>',
          );
        if (spec.heading) $(spec.heading).wrap('<div class="mut-heading"></div>');
        return true;
      }, spec.list !== undefined),
    },
    {
      name: "headers written with a trailing colon",
      apply: html(($) => {
        const ths = lists($, spec)
          .flatMap((l) => tablesIn($, l))
          .flatMap((t) => {
            const head = headerOf($, t);
            return head ? cellsOf($, head) : [];
          });
        for (const th of ths) {
          const t = $(th).text().trim();
          if (t) $(th).text(`${t}:`);
        }
        return ths.length > 0;
      }, spec.list !== undefined),
    },
    {
      name: "scripts, styles and comments inside the list's cells",
      apply: html(($) => {
        const cells = lists($, spec).flatMap((l) => $(l).find("td").toArray());
        for (const td of cells)
          $(td).prepend(
            "<!-- cell --><script>document.write('<td>5/5/2020</td>');</script><style>td{color:red}</style>",
          );
        return cells.length > 0;
      }, spec.list !== undefined),
    },
    {
      name: "headers renamed to words the preset does not know",
      mayBeUnreadable: true,
      apply: html(($) => {
        const ts = lists($, spec).flatMap((l) => tablesIn($, l));
        for (const t of ts) {
          const head = headerOf($, t);
          if (head) for (const th of cellsOf($, head)) $(th).text(`Spalte ${$(th).index() + 1}`);
        }
        return ts.length > 0;
      }, spec.list !== undefined),
    },
    { name: "a byte-order mark", apply: withBom },
  ];
}

function mapJson(v: unknown, f: (o: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (Array.isArray(v)) return v.map((x) => mapJson(x, f));
  if (v && typeof v === "object") {
    const o = Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, mapJson(x, f)]),
    );
    return f(o);
  }
  return v;
}

function json(edit: (v: unknown) => unknown | undefined, indent = 0) {
  return (body: Uint8Array): Uint8Array | undefined => {
    const t = text(body)
      .replace(/^\uFEFF/, "")
      .replace(/^(?:\s*\/\/[^\n]*\n)+/, "");
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      return undefined;
    }
    const out = edit(v);
    return out === undefined ? undefined : enc(JSON.stringify(out, null, indent));
  };
}

function jsonMutations(preset: string): Mutation[] {
  const optional = OPTIONAL_KEYS[preset] ?? [];
  return [
    {
      name: "keys in another order",
      apply: json((v) => mapJson(v, (o) => Object.fromEntries(Object.entries(o).reverse()))),
    },
    {
      name: "fields added",
      apply: json((v) =>
        mapJson(v, (o) =>
          Object.keys(o).length === 0 ? o : { ...o, apiVersion: "9.9", extra: { note: "x" } },
        ),
      ),
    },
    {
      name: "optional fields dropped",
      apply: json((v) => {
        if (optional.length === 0) return undefined;
        return mapJson(v, (o) =>
          Object.fromEntries(Object.entries(o).filter(([k]) => !optional.includes(k))),
        );
      }),
    },
    { name: "pretty-printed", apply: json((v) => v, 2) },
    { name: "a byte-order mark", apply: withBom },
  ];
}

/** XML that is not RSS (BoardDocs' meetings list, not always well-formed): edited as text. */
function xmlTextMutations(): Mutation[] {
  const xml = (edit: (t: string) => string) => (body: Uint8Array) => {
    const t = text(body);
    if (/<rss[\s>]/i.test(t.slice(0, 4096))) return undefined;
    const out = edit(t);
    return out === t ? undefined : enc(out);
  };
  return [
    {
      name: "xml: unrelated elements and comments around the list",
      apply: xml((t) =>
        t.replace(
          /<meetings(\s[^>]*)?>/,
          (m) => `<!-- exported by a newer release -->${m}<generated>2026-01-01</generated>`,
        ),
      ),
    },
    {
      name: "xml: reindented",
      apply: xml((t) => t.replace(/>\s*\n\s*</g, ">\n    <")),
    },
  ];
}

function xmlMutations(): Mutation[] {
  const rss = (edit: ($: CheerioAPI) => boolean) => (body: Uint8Array) => {
    const t = text(body);
    if (!/<rss[\s>]/i.test(t.slice(0, 4096))) return undefined;
    const $ = cheerio.load(t, { xml: true });
    return edit($) ? enc($.xml()) : undefined;
  };
  return [
    {
      name: "feed: item elements in another order",
      apply: rss(($) => {
        $("item").each((_, it) => {
          $(it).append($(it).children().toArray().reverse());
        });
        return $("item").length > 0;
      }),
    },
    {
      name: "feed: unrelated channel and item elements",
      apply: rss(($) => {
        $("channel").prepend("<generator>CMS 9</generator><ttl>60</ttl>");
        $("item").append("<comments>https://example.gov/comments</comments>");
        return $("channel").length > 0;
      }),
    },
    { name: "a byte-order mark", apply: withBom },
  ];
}

function mutationsFor(preset: string, file: string, body: Uint8Array): Mutation[] {
  const head = text(body.subarray(0, 512))
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (
    /\.json$/i.test(file) ||
    head.startsWith("{") ||
    head.startsWith("[") ||
    head.startsWith("//")
  )
    return jsonMutations(preset);
  if (/\.xml$/i.test(file)) return [...xmlMutations(), ...xmlTextMutations()];
  return htmlMutations(HTML[preset] ?? {});
}

// ---------------------------------------------------------------- running them

interface Summary {
  id: string;
  title: string;
  date?: string | undefined;
  url?: string | undefined;
}

function summary(rs: ExtractedRecord[]): Summary[] {
  return rs
    .map((r) => ({ id: r.id, title: r.title, date: r.date, url: r.url }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function cases(): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const folder of readdirSync(FIXTURES).sort()) {
    if (!statSync(`${FIXTURES}${folder}`).isDirectory() || NO_PRESET.has(folder)) continue;
    const preset = PRESET_OF[folder];
    if (!preset) throw new Error(`fixture folder ${folder} has no preset in this table`);
    for (const file of readdirSync(`${FIXTURES}${folder}`).sort())
      if (file !== "PROVENANCE.md") out.push([preset, folder, file]);
  }
  return out;
}

describe("P6: find by meaning — every platform fixture, mutated", () => {
  it("every fixture folder is a preset's or a known recipe folder", () => {
    expect(cases().length).toBeGreaterThanOrEqual(32);
  });

  it("fixtures/platforms/catalog.yaml gives every preset fixture its government (and zone), and names no other file", () => {
    const named = loadCatalog([`${FIXTURES}catalog.yaml`]).sources.map((s) => s.evidence);
    const fixtures = cases().map(([, folder, file]) => `${folder}/${file}`);
    expect([...named].sort()).toEqual(fixtures.sort());
  });

  describe.each(cases())("%s: %s/%s", (preset, folder, file) => {
    const p = getPlatform(preset)!;
    // Read as the night reads it: the address it was saved from, its government's zone.
    const source = fixtureSource(`${folder}/${file}`);
    const url = source.url;
    const ctx = { zone: source.timezone };
    const body = fixture(`${folder}/${file}`);
    const base = p.extract(body, url, ctx);
    const muts = mutationsFor(preset, file, body);
    // The request the unchanged page leads to, asked once: every mutation is held to it.
    const prev: PlatformRequest = { method: "GET", url };
    let baseNext: { request: ReturnType<NonNullable<typeof p.nextRequest>> } | undefined;

    it("the fixture itself reads, as its catalog source's preset", () => {
      expect(source.platform).toBe(preset);
      expect(base.unreadable).toBeUndefined();
    });

    it.each(muts.map((m) => [m.name, m] as const))(
      "%s: same records, or says it cannot read",
      (_, m) => {
        const changed = m.apply(body);
        if (!changed) return; // the mutation does not apply to this page (no such column…)
        const x = p.extract(changed, url, ctx);
        if (x.unreadable !== undefined) {
          // Said, with a reason and no records: never fewer records silently.
          expect(x.unreadable.length).toBeGreaterThan(10);
          expect(x.records).toEqual([]);
          expect(m.mayBeUnreadable, `unreadable: ${x.unreadable}`).toBe(true);
          return;
        }
        expect(summary(x.records)).toEqual(summary(base.records));
        if (base.records.length === 0) expect(x.note).toBe(base.note);
        expect(x.next).toBe(base.next);
        if (p.nextRequest && !/second|another record shape/.test(m.name)) {
          baseNext ??= { request: p.nextRequest(prev, body, base) };
          expect(p.nextRequest(prev, changed, x)).toEqual(baseNext.request);
        }
      },
    );
  });
});

describe("P6: a page whose list cannot be told is said to be unreadable, never read by position", () => {
  const renamed = (rel: string, strip = false) => {
    const $ = cheerio.load(text(fixture(rel)));
    $("th").each((i, th) => {
      $(th).text(`Spalte ${i + 1}`);
    });
    if (strip) $("td[headers]").removeAttr("headers");
    return enc($.html());
  };

  // Fixtures are named by folder and file apart: each file's own test claims its path.
  it.each([
    [
      "legistar-html",
      "TN_nashville_Calendar.aspx_GET_thisyear.html",
      false,
      /Name and Meeting Date/,
    ],
    ["novusagenda", "CA_dinuba_meetingsgeneral.html", false, /Meeting Date and Meeting Type/],
    ["granicus", "FL_lakewales_ViewPublisher.html", true, /Name and Date/],
  ] as const)(
    "%s (%s) with its headers in words it does not know: extract-error with the reason",
    (preset, file, strip, why) => {
      const rel = `${preset}/${file}`;
      const x = getPlatform(preset)!.extract(renamed(rel, strip), "https://records.example.gov/");
      expect(x.records).toEqual([]);
      expect(x.unreadable).toMatch(why);
    },
  );

  it('granicus: cells that name their header (`headers="Name"`) still read without a header row', () => {
    const rel = ["granicus", "FL_lakewales_ViewPublisher.html"].join("/");
    const url = "https://lakewales.granicus.com/ViewPublisher.php?view_id=1";
    const x = getPlatform("granicus")!.extract(renamed(rel), url);
    expect(x.unreadable).toBeUndefined();
    expect(summary(x.records)).toEqual(
      summary(getPlatform("granicus")!.extract(fixture(rel), url).records),
    );
  });
});
