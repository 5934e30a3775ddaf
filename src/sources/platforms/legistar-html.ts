/**
 * Legistar InSite `Calendar.aspx` (`<client>.legistar.com`), for clients whose Web API is not
 * set up: a Telerik RadGrid `table.rgMasterTable` of meetings (`tr.rgRow`/`tr.rgAltRow`;
 * cells Name, Meeting Date `M/D/YYYY`, iCal, Meeting Time `h:mm AM`, Location, Details, Agenda,
 * Accessible Agenda, Minutes, …) with relative `View.ashx?M=A&ID=…&GUID=…` links.
 * Backfill (P7): the year list is a RadComboBox, and choosing a year is an ASP.NET postback
 * (P5), so `nextRequest` posts the page's hidden fields back with `__EVENTTARGET` =
 * the combo and its ClientState set to the year before the one shown.
 */
import * as cheerio from "cheerio";
import { toIsoDate } from "../dates.js";
import type { Extraction } from "../record.js";
import { cleanText } from "../record-id.js";
import { type PostbackForm, postbackBody, readForm } from "./support/aspnet.js";
import { decode } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
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

export const legistarHtml: Platform = {
  name: "legistar-html",
  access: "form",
  firstRequest(url: string): PlatformRequest {
    const u = new URL(url);
    if (!/calendar\.aspx$/i.test(u.pathname)) u.pathname = "/Calendar.aspx";
    return { method: "GET", url: u.href, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string): Extraction {
    const $ = cheerio.load(decode(body));
    const meetings: ListedMeeting[] = [];
    $("table.rgMasterTable")
      .first()
      .find("> tbody > tr.rgRow, > tbody > tr.rgAltRow")
      .each((_, tr) => {
        const cells = $(tr).children("td");
        const title = cleanText(cells.eq(0).text());
        const day = cleanText(cells.eq(1).text());
        const time =
          cleanText($(tr).find("span[id$='_lblTime']").text()) || cleanText(cells.eq(3).text());
        const docs: ListedDoc[] = [];
        let id: string | undefined;
        let detail: string | undefined;
        $(tr)
          .find("a[href]")
          .each((_, a) => {
            const href = $(a).attr("href") ?? "";
            if (/MeetingDetail\.aspx/i.test(href)) detail = href;
            const m = DOC_LINK.exec(href);
            // The meeting's id is in its own links (iCal, details, agenda), not the body's
            // DepartmentDetail.aspx?ID=, which every meeting of that body shares.
            if (m || /MeetingDetail\.aspx/i.test(href)) id ??= /[?&]ID=(\d+)/i.exec(href)?.[1];
            const label = m ? DOC_LABEL[m[1]!.toUpperCase()] : undefined;
            if (label) docs.push({ label, href, key: label.toLowerCase() });
          });
        if (!title || /no records to display/i.test(title)) return;
        meetings.push({
          id,
          title,
          date: toIsoDate(`${day} ${time}`) ?? toIsoDate(day),
          href: detail,
          docs,
        });
      });
    const form = readForm($, url);
    if (form) {
      const shown =
        $(`input[name='${YEARS}']`).attr("value") ??
        $("#ctl00_ContentPlaceHolder1_lstYears_Input").attr("value") ??
        "";
      const years = $("#ctl00_ContentPlaceHolder1_lstYears_DropDown li")
        .map((_, li) => Number(cleanText($(li).text())))
        .get()
        .filter((n) => Number.isInteger(n) && n > 1900);
      states.set(body, { form, shown: cleanText(shown), years });
    }
    const records = allRecords(meetings, url);
    return records.length > 0 ? { records } : { records, note: "no meetings in the calendar grid" };
  },
  nextRequest(prev, body, extraction): PlatformRequest | undefined {
    const st = states.get(body);
    if (!st) return undefined;
    let year = Number(st.shown);
    if (!Number.isInteger(year) || year < 1900) {
      // "This Year"/"This Month": the shown rows' year is the current one.
      const first = extraction.records.map((r) => r.date).find((d) => d !== undefined);
      if (!first) return undefined;
      year = Number(first.slice(0, 4));
      // "This Month" shows less than its year: read the whole year next.
      if (!/year/i.test(st.shown)) year += 1;
    }
    const target = year - 1;
    if (!st.years.includes(target)) return undefined;
    const body2 = postbackBody(st.form, {
      __EVENTTARGET: YEARS,
      __EVENTARGUMENT: "",
      [YEARS_STATE]: JSON.stringify({ value: String(target) }),
      [YEARS]: String(target),
    });
    return {
      method: "POST",
      url: st.form.action || prev.url,
      body: body2,
      contentType: "application/x-www-form-urlencoded",
      accept: "text/html",
    };
  },
};
