/**
 * Legistar InSite `Calendar.aspx` (`<client>.legistar.com`), for clients whose Web API is not
 * set up: a Telerik RadGrid `table.rgMasterTable` of meetings (`tr.rgRow`/`tr.rgAltRow`;
 * columns Name, Meeting Date `M/D/YYYY`, iCal, Meeting Time `h:mm AM`, Location, Details,
 * Agenda, Minutes, … in the order each client chose) with relative `View.ashx?M=A&ID=…&GUID=…`
 * links.
 * Found by meaning (P6): a grid is the calendar when its headers name a Name and a Meeting
 * Date column, and each cell is read under its header, so another client's column order
 * reads the same; a page may hold several RadGrids (a smaller upcoming-meetings grid above,
 * a legislation grid): every calendar grid is read and the meetings deduplicated, never the
 * first grid by accident. A grid that lists meetings without those headers cannot be read
 * for sure, and says so (`unreadable`).
 * Backfill (P7): the year list is a RadComboBox, and choosing a year is an ASP.NET postback
 * (P5), so `nextRequest` posts the server form's hidden fields back with `__EVENTTARGET` =
 * the combo and its ClientState set to the year before the one shown.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { bodyEncoding, decodeBody } from "../../policy/body-text.js";
import { answerDates, toIsoDate } from "../dates.js";
import { descendantsWhere, isLink } from "../extract/descendants.js";
import { textOf } from "../extract/select.js";
import type { Extraction, ReadContext } from "../record.js";
import { unreadable } from "../record.js";
import { cleanText } from "../record-id.js";
import { type PostbackForm, postbackBody, readForm } from "./support/aspnet.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { cellAt, findColumn, headerNames, ownRows } from "./support/table.js";
import type { Platform, PlatformRequest } from "./types.js";

const YEARS = "ctl00$ContentPlaceHolder1$lstYears";
const YEARS_STATE = "ctl00_ContentPlaceHolder1_lstYears_ClientState";

interface PageState {
  form: PostbackForm;
  /** What the year combo shows: "This Year", "2023", … */
  shown: string;
  years: number[];
}

/** Kept from the one parse in `extract` for `nextRequest` (bodies are not parsed twice). */
const states = new WeakMap<Uint8Array, PageState>();

const DOC_LINK = /View\.ashx\?M=(A|M|AADA|MADA|IC)&/i;
const DOC_LABEL: Record<string, string> = { A: "Agenda", M: "Minutes" };
/** A link that belongs to one meeting: its documents, iCal or details page. */
const MEETING_LINK = "a[href*='View.ashx?M=' i], a[href*='MeetingDetail.aspx' i]";

interface CalendarGrid {
  table: Element;
  name: number;
  date: number;
  time: number | undefined;
}

/** The RadGrids whose headers say they are the meetings calendar (Name, Meeting Date). */
function calendarGrids($: CheerioAPI): { grids: CalendarGrid[]; unread: string[] } {
  const grids: CalendarGrid[] = [];
  const unread: string[] = [];
  for (const table of $("table.rgMasterTable").toArray()) {
    const names = headerNames($, table) ?? [];
    const name = findColumn(names, /^name$/, /^(meeting )?body( name)?$/);
    const date = findColumn(names, /^meeting date$/, /^date$/);
    if (name !== undefined && date !== undefined) {
      grids.push({ table, name, date, time: findColumn(names, /^meeting time$/, /^time$/) });
    } else if (ownRows($, table).some((tr) => $(tr).find(MEETING_LINK).length > 0)) {
      // It lists meetings, but not under headers this reader knows: which cell is what?
      unread.push(`${table.attribs["id"] ?? "a grid"} (columns: ${names.join(", ") || "none"})`);
    }
  }
  return { grids, unread };
}

interface Row {
  tr: Element;
  title: string;
  day: string;
  time: string;
}

function gridRows($: CheerioAPI, g: CalendarGrid): Row[] {
  const out: Row[] = [];
  for (const tr of ownRows($, g.table)) {
    const row = $(tr);
    if (row.parent().is("thead") || row.children("th").length > 0) continue;
    if (row.is(".rgNoRecords, .rgPager")) continue;
    // The body's name is the ASP.NET control `…_hypBody`; its column, where the header says.
    const title = textOf(cellAt($, tr, g.name)) || textOf(row.find("[id$='_hypBody']"));
    const day = textOf(cellAt($, tr, g.date));
    const time = textOf(row.find("[id$='_lblTime']")) || textOf(cellAt($, tr, g.time));
    if (!title || /no records to display/i.test(title)) continue;
    out.push({ tr, title, day, time });
  }
  return out;
}

function meetingOf($: CheerioAPI, r: Row, opts: ReturnType<typeof answerDates>): ListedMeeting {
  const docs: ListedDoc[] = [];
  let id: string | undefined;
  let detail: string | undefined;
  $(descendantsWhere([r.tr], isLink)).each((_, a) => {
    const href = $(a).attr("href") ?? "";
    if (/MeetingDetail\.aspx/i.test(href)) detail = href;
    const m = DOC_LINK.exec(href);
    // The meeting's id is in its own links (iCal, details, agenda), not the body's
    // DepartmentDetail.aspx?ID=, which every meeting of that body shares.
    if (m || /MeetingDetail\.aspx/i.test(href)) id ??= /[?&]ID=(\d+)/i.exec(href)?.[1];
    const label = m ? DOC_LABEL[m[1]!.toUpperCase()] : undefined;
    if (label) docs.push({ label, href, key: label.toLowerCase() });
  });
  return {
    id,
    title: r.title,
    date: toIsoDate(`${r.day} ${r.time}`, opts) ?? toIsoDate(r.day, opts),
    href: detail,
    docs,
  };
}

function extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
  const $ = visiblePage(decodeBody(body, ctx.contentType));
  const { grids, unread } = calendarGrids($);
  if (unread.length > 0) {
    return unreadable(
      `Legistar grid listing meetings without Name and Meeting Date headers: ${unread.join("; ")}`,
    );
  }
  const rows = grids.flatMap((g) => gridRows($, g));
  // Every date of the answer decides together whether it is written day-first.
  const opts = answerDates(
    rows.map((r) => r.day),
    ctx.zone,
  );
  const meetings = rows.map((r) => meetingOf($, r, opts));
  const form = readForm($, url, grids[0]?.table, bodyEncoding(body, ctx.contentType));
  if (form) {
    const shown =
      $(`input[name='${YEARS}']`).attr("value") ??
      $("#ctl00_ContentPlaceHolder1_lstYears_Input").attr("value") ??
      "";
    const years = $("#ctl00_ContentPlaceHolder1_lstYears_DropDown li")
      .map((_, li) => Number(textOf($(li))))
      .get()
      .filter((n) => Number.isInteger(n) && n > 1900);
    states.set(body, { form, shown: cleanText(shown), years });
  }
  const records = allRecords(meetings, url);
  if (records.length > 0) return { records };
  return {
    records,
    note: grids.length > 0 ? "no meetings in the calendar grid" : "no calendar grid on this page",
  };
}

/** The postback a visitor's choice of `year` in the calendar's year list sends. */
function yearPostback(st: PageState, year: number, pageUrl: string): PlatformRequest {
  const body = postbackBody(st.form, {
    __EVENTTARGET: YEARS,
    __EVENTARGUMENT: "",
    [YEARS_STATE]: JSON.stringify({ value: String(year) }),
    [YEARS]: String(year),
  });
  return {
    method: "POST",
    url: st.form.action || pageUrl,
    body,
    contentType: "application/x-www-form-urlencoded",
    accept: "text/html",
  };
}

export const legistarHtml: Platform = {
  name: "legistar-html",
  access: "form",
  firstRequest(url: string): PlatformRequest {
    const u = new URL(url);
    if (!/calendar\.aspx$/i.test(u.pathname)) u.pathname = "/Calendar.aspx";
    return { method: "GET", url: u.href, accept: "text/html" };
  },
  extract,
  nextRequest(prev, body, extraction): PlatformRequest | undefined {
    const st = states.get(body);
    if (!st) return undefined;
    let year = Number(st.shown);
    if (!Number.isInteger(year) || year < 1900) {
      // "This Year"/"This Month": the shown rows' (latest) year is the current one.
      const years = extraction.records.flatMap((r) => (r.date ? [Number(r.date.slice(0, 4))] : []));
      if (years.length === 0) return undefined;
      year = Math.max(...years);
      // "This Month" shows less than its year: read the whole year next.
      if (!/year/i.test(st.shown)) year += 1;
    }
    const target = year - 1;
    if (!st.years.includes(target)) return undefined;
    return yearPostback(st, target, prev.url);
  },
  resumeRequest(cursor, first, body): PlatformRequest | undefined {
    // P5, P7: the year an earlier night's backfill left off at, chosen again on tonight's
    // calendar, with tonight's page state (never the state of the page it was chosen on).
    const st = states.get(body);
    if (!st || cursor.body === undefined) return undefined;
    const year = Number(new URLSearchParams(cursor.body).get(YEARS));
    if (!Number.isInteger(year) || !st.years.includes(year)) return undefined;
    return yearPostback(st, year, first.url);
  },
};
