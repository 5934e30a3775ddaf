/**
 * Hyland OnBase Agenda Online (`/OnBaseAgendaOnline/Meetings/Search?dropid=…&mtids=…&dropsv=…
 * &dropev=…`): a Bootstrap `table.table-hover` of `tr.meeting-row[data-meeting-id]`. The same
 * meeting is written three ways in one row (the "name" cell is a long date, the time cell
 * `9/23/2019 7:00:00 PM`, and the responsive copies), so only the desktop cells are read.
 * Document links say what they are in their title ("View Agenda for …", doctype=1); the
 * search answers every meeting in its range on one page.
 */
import { decodeBody } from "../../policy/body-text.js";
import { answerDates, toIsoDate } from "../dates.js";
import { descendantsWhere, isLink } from "../extract/descendants.js";
import { textOf } from "../extract/select.js";
import type { Extraction, ReadContext } from "../record.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

export const onbaseAgendaonline: Platform = {
  name: "onbase-agendaonline",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const $ = visiblePage(decodeBody(body, ctx.contentType));
    const meetings: ListedMeeting[] = [];
    const rows = $("tr.meeting-row");
    const cellText = (tr: ReturnType<typeof $>, t: string) =>
      textOf(tr.children(`td[data-sortable-type='${t}']`).first());
    const opts = answerDates(
      rows.toArray().map((tr) => cellText($(tr), "mtgTime")),
      ctx.zone,
    );
    rows.each((_, tr) => {
      const row = $(tr);
      const id = row.attr("data-meeting-id");
      const type = cellText(row, "mtgType");
      const named = cellText(row, "mtgName");
      const when = cellText(row, "mtgTime");
      const docs: ListedDoc[] = [];
      $(descendantsWhere(row.toArray(), isLink)).each((_, a) => {
        const href = $(a).attr("href") ?? "";
        const n = /[?&](?:doctype|documentType)=(\d+)/i.exec(href)?.[1];
        if (!n) return;
        const label =
          /^(?:View|Download)\s+(.+?)\s+for\b/i.exec($(a).attr("title") ?? "")?.[1] ??
          `Document ${n}`;
        // The viewer and the download are one document: keep the first (the viewer page).
        if (!docs.some((d) => d.key === `doctype-${n}`))
          docs.push({ label, href, key: `doctype-${n}` });
      });
      const title = type || named;
      if (!title) return;
      meetings.push({ id, title, date: toIsoDate(when, opts) ?? toIsoDate(named, opts), docs });
    });
    const records = allRecords(meetings, url);
    const out: Extraction = { records };
    if (records.length === 0) {
      out.note = /Showing 0 Meeting/i.test($.text())
        ? "Showing 0 Meeting(s)"
        : "no meeting rows on this page";
    }
    return out;
  },
};
