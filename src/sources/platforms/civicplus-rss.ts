/**
 * CivicPlus CivicEngage feeds (`/RSSFeed.aspx?ModID=N&CID=All-…`), one preset for the modules
 * the sites use for records: 65 Agenda Center, 58 Calendar, 1 News Flash (public notices).
 * `pubDate` is when an item was posted or updated, not the meeting: Agenda Center's meeting
 * date lives only in the free-text title, Calendar's in `calendarEvent:EventDates`. The guid is
 * the link plus .NET ticks that change on every edit, so the id is the link alone. A feed URL
 * that answers with an HTML page gives no records and a note that says so.
 */

import { decodeBody } from "../../policy/body-text.js";
import { type DateOptions, toIsoDate } from "../dates.js";
import type { Extraction, ReadContext, RecordKind } from "../record.js";
import { absoluteUrl } from "../record-id.js";
import { makeRecord } from "./support/records.js";
import { type RssItem, readRss } from "./support/rss.js";
import { dateInText } from "./support/text-date.js";
import type { Platform, PlatformRequest } from "./types.js";

type Module = "agendas" | "calendar" | "news" | "other";

function moduleOf(url: string, channelTitle: string | undefined): Module {
  const mod = /[?&]modid=(\d+)/i.exec(url)?.[1];
  if (mod === "65") return "agendas";
  if (mod === "58") return "calendar";
  if (mod === "1") return "news";
  const t = channelTitle?.toLowerCase() ?? "";
  if (t.includes("agenda")) return "agendas";
  if (t.includes("calendar")) return "calendar";
  if (t.includes("news")) return "news";
  return "other";
}

const MEETINGLIKE = /meeting|board|commission|council|committee|hearing|workshop/i;

function recordOf(it: RssItem, mod: Module, url: string, opts: DateOptions) {
  const title = it.get("title") ?? "";
  const link = absoluteUrl(it.get("link"), url);
  const posted = toIsoDate(it.get("pubDate") ?? "", opts);
  let date: string | undefined;
  let kind: RecordKind;
  if (mod === "agendas") {
    // Titles without a date ("Citizens and … Committee") fall back to the posting time.
    date = dateInText(title, opts) ?? posted;
    kind = /update:\s*minutes/i.test(it.get("description") ?? "") ? "minutes" : "agendas";
  } else if (mod === "calendar") {
    const day = it.get("calendarEvent:EventDates") ?? "";
    const start = (it.get("calendarEvent:EventTimes") ?? "").split(/\s+-\s+/)[0] ?? "";
    date = toIsoDate(`${day} ${start}`, opts) ?? toIsoDate(day, opts) ?? posted;
    kind = MEETINGLIKE.test(title) ? "meetings" : "other";
  } else {
    date = posted;
    kind = mod === "news" ? "notices" : "other";
  }
  const guid = it.get("guid")?.replace(/\/\d{15,}$/, "");
  return makeRecord({ id: link ?? guid, title, date, url: link }, kind);
}

export const civicplusRss: Platform = {
  name: "civicplus-rss",
  access: "feed",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "application/rss+xml, application/xml;q=0.9" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const feed = readRss(decodeBody(body, ctx.contentType));
    if (!feed.ok) return { records: [], note: feed.why };
    const mod = moduleOf(url, feed.channelTitle);
    const opts = { zone: ctx.zone };
    const records = feed.items
      .map((it) => recordOf(it, mod, url, opts))
      .filter((r) => r.title !== "");
    return records.length > 0 ? { records } : { records, note: "the feed has no items" };
  },
};
