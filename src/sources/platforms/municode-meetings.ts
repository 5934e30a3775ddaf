/**
 * Municode Meetings, both faces:
 * - `meetings.municode.com/PublishPage?cid=…&ppid=…&p=N`: `table.mcm` rows with cells
 *   `.meeting .date .time .venue .agenda .packet .minutes .multimedia`; pages `&p=N`.
 * - `<city>.municodemeetings.com` (Drupal): rows with `td[data-th=Date]` holding
 *   `span[content]` (ISO with the site's own offset, kept), `Meeting`, `Agenda`,
 *   `Agenda Packet`, `Minutes`; pages `?page=N` from 0.
 * The id is the document hex of `MEET-Agenda-<hex>` / `MEET-Packet-<hex>`, which names the
 * meeting in Municode's store. Next (older) page (P7) is `p+1` up to the pager's last page.
 */

import type { CheerioAPI } from "cheerio";
import { decodeBody } from "../../policy/body-text.js";
import { answerDates, type DateOptions, toIsoDate } from "../dates.js";
import { textOf } from "../extract/select.js";
import type { Extraction, ReadContext } from "../record.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

const MEET_ID = /MEET-(?:Agenda|Packet|Minutes)-([0-9a-f]{16,})/i;

function docsIn(cells: [string, string][], row: ReturnType<CheerioAPI>): ListedDoc[] {
  const docs: ListedDoc[] = [];
  for (const [selector, label] of cells) {
    // A cell may link the PDF and an HTML copy: the document is the stored `MEET-…` file.
    const links = row.find(selector).find("a[href]");
    const stored = links.filter((_, a) => MEET_ID.test(a.attribs["href"] ?? ""));
    const href = (stored.length > 0 ? stored : links).attr("href");
    if (href && !href.startsWith("javascript:"))
      docs.push({ label, href, key: label.toLowerCase().replace(/\s+/g, "-") });
  }
  return docs;
}

function idOf(docs: ListedDoc[]): string | undefined {
  for (const d of docs) {
    const m = MEET_ID.exec(d.href ?? "");
    if (m) return m[1]!.toLowerCase();
  }
  return undefined;
}

function publishPage($: CheerioAPI, zone: string | undefined): ListedMeeting[] {
  const out: ListedMeeting[] = [];
  const rows = $("tr:has(> td.meeting)");
  const opts: DateOptions = answerDates(
    rows.toArray().map((tr) => textOf($(tr).children("td.date"))),
    zone,
  );
  rows.each((_, tr) => {
    const row = $(tr);
    const title = textOf(row.children("td.meeting"));
    if (!title) return;
    const day = textOf(row.children("td.date"));
    const time = textOf(row.children("td.time"));
    const docs = docsIn(
      [
        ["td.agenda", "Agenda"],
        ["td.packet", "Agenda Packet"],
        ["td.minutes", "Minutes"],
      ],
      row,
    );
    const date = toIsoDate(`${day} ${time}`, opts) ?? toIsoDate(day, opts);
    out.push({ id: idOf(docs), title, date, docs });
  });
  return out;
}

function drupal($: CheerioAPI, zone: string | undefined): ListedMeeting[] {
  const out: ListedMeeting[] = [];
  const rows = $("tr:has(> td[data-th='Meeting'])");
  const opts: DateOptions = answerDates(
    rows.toArray().map((tr) => textOf($(tr).children("td[data-th='Date']"))),
    zone,
  );
  rows.each((_, tr) => {
    const row = $(tr);
    const title = textOf(row.children("td[data-th='Meeting']"));
    if (!title) return;
    const dateCell = row.children("td[data-th='Date']");
    const iso = dateCell.find("[content]").attr("content");
    const date = (iso && toIsoDate(iso, opts)) || toIsoDate(textOf(dateCell), opts);
    const docs = docsIn(
      [
        ["td[data-th='Agenda']", "Agenda"],
        ["td[data-th='Agenda Packet']", "Agenda Packet"],
        ["td[data-th='Minutes']", "Minutes"],
      ],
      row,
    );
    const href = row.children("td[data-th='View']").find("a[href]").attr("href");
    out.push({ id: idOf(docs) ?? href, title, date, href, docs });
  });
  return out;
}

function nextPage($: CheerioAPI, url: string): string | undefined {
  const u = new URL(url);
  const publish = /\/PublishPage$/i.test(u.pathname);
  const param = publish ? "p" : "page";
  const current = Number(u.searchParams.get(param) ?? (publish ? 1 : 0));
  let last = Number.NaN;
  $("a[href]").each((_, a) => {
    const m = new RegExp(`[?&]${param}=(\\d+)(?:&|$)`).exec($(a).attr("href") ?? "");
    if (m) last = Number.isNaN(last) ? Number(m[1]) : Math.max(last, Number(m[1]));
  });
  if (!Number.isInteger(current) || !(last > current)) return undefined;
  u.searchParams.set(param, String(current + 1));
  return u.href;
}

export const municodeMeetings: Platform = {
  name: "municode-meetings",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const $ = visiblePage(decodeBody(body, ctx.contentType));
    // Cells say what they are (`td.meeting`, `td[data-th=Date]`), wherever they stand.
    const meetings = [...publishPage($, ctx.zone), ...drupal($, ctx.zone)];
    const out: Extraction = { records: allRecords(meetings, url) };
    const next = nextPage($, url);
    if (next && out.records.length > 0) out.next = next;
    if (out.records.length === 0) out.note = "no meeting rows on this page";
    return out;
  },
  nextRequest(_prev, _body, extraction): PlatformRequest | undefined {
    return extraction.next
      ? { method: "GET", url: extraction.next, accept: "text/html" }
      : undefined;
  },
};
