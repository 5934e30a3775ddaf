/**
 * BoardDocs (go.boarddocs.com/<state>/<site>/Board.nsf). Two ways in, both whole lists:
 * - POST `BD-GetMeetingsList?open` with `current_committee_id=<id>` → a JSON array of
 *   `{unique, name, numberdate}` ending in an empty `{}` (skipped). Chosen when the catalog
 *   url names the committee (`?committee=<id>`).
 * - GET `XML-ActiveMeetings` → `<meetings><meeting id>…` with agenda items embedded. Real
 *   answers are not always well-formed XML, so meetings are cut out on `<meeting …>` starts,
 *   never parsed as a document.
 * The `Board.nsf/Public` landing page is a script shell with no meetings in it: no records,
 * and a note that says so (never invent). Links are `goto?open&id=<unique>` (P6: noted only).
 */

import { decodeBody } from "../../policy/body-text.js";
import { toIsoDate } from "../dates.js";
import { looksLikeHtml } from "../extract/decode.js";
import { parseJsonText } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

/** `https://go.boarddocs.com/oh/columbus/Board.nsf` from any url under it. */
function nsfBase(url: string): string {
  const i = url.toLowerCase().indexOf("/board.nsf");
  return i >= 0 ? url.slice(0, i + "/board.nsf".length) : url.replace(/\/+$/, "");
}

function gotoLink(base: string, id: string): string {
  return `${nsfBase(base)}/goto?open&id=${encodeURIComponent(id)}`;
}

function fromJsonList(list: unknown[], url: string): Extraction {
  const meetings: ListedMeeting[] = [];
  for (const item of list) {
    const o = obj(item);
    const id = str(o?.["unique"]);
    const name = str(o?.["name"]);
    if (!o || !id || !name) continue; // the trailing `{}`
    meetings.push({
      id,
      title: name,
      date: toIsoDate(str(o["numberdate"]) ?? ""),
      href: gotoLink(url, id),
    });
  }
  const records = allRecords(meetings, url);
  return records.length > 0 ? { records } : { records, note: "BoardDocs list is empty" };
}

const ARCHIVE = /^board meetings\s*-\s*\d{4}\s+archive$/i;

function tag(chunk: string, name: string): string | undefined {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(chunk);
  return m?.[1];
}

function fromXml(text: string, url: string): Extraction {
  const meetings: ListedMeeting[] = [];
  let skipped = 0;
  const starts = [...text.matchAll(/<meeting\s[^>]*>/g)];
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i]!;
    const end = starts[i + 1]?.index ?? text.length;
    const chunk = text.slice(s.index, end);
    const id = /\sid="([^"]+)"/.exec(s[0])?.[1];
    // The meeting's own <name> comes before its first <category>.
    const head = chunk.split("<category")[0] ?? chunk;
    const title = tag(head, "name")?.trim();
    if (!title) continue;
    // Yearly "Board Meetings - 2005 Archive" folders are placeholders, not meetings.
    if (ARCHIVE.test(title)) {
      skipped++;
      continue;
    }
    const day = /<date format="yyyy-mm-dd">([^<]+)<\/date>/.exec(head)?.[1];
    const link = tag(head, "link")?.replace(/&amp;/g, "&").trim();
    meetings.push({
      id,
      title,
      date: day ? toIsoDate(day) : undefined,
      href: link ?? (id ? gotoLink(url, id) : undefined),
    });
  }
  const records = allRecords(meetings, url);
  const out: Extraction = { records };
  if (records.length === 0) out.note = "XML-ActiveMeetings lists no meetings";
  else if (skipped > 0) out.note = `${skipped} yearly archive folders skipped (not meetings)`;
  return out;
}

export const boarddocs: Platform = {
  name: "boarddocs",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    const committee = new URL(url).searchParams.get("committee");
    if (committee) {
      return {
        method: "POST",
        url: `${nsfBase(url)}/BD-GetMeetingsList?open`,
        body: `current_committee_id=${encodeURIComponent(committee)}`,
        contentType: "application/x-www-form-urlencoded",
        accept: "application/json",
      };
    }
    // Without a committee id the list answers empty; the XML feed needs none.
    return { method: "GET", url: `${nsfBase(url)}/XML-ActiveMeetings`, accept: "application/xml" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const text = decodeBody(body, ctx.contentType);
    const t = text.trimStart();
    if (t === "") {
      return {
        records: [],
        note: "empty answer: BoardDocs answers empty when the committee id is missing or wrong",
      };
    }
    if (t.startsWith("[")) {
      const j = parseJsonText(t);
      return j.ok ? fromJsonList(arr(j.value), url) : { records: [], note: j.why };
    }
    if (looksLikeHtml(t)) return { records: [], note: "script shell: use BD-GetMeetingsList" };
    if (/<meetings?[\s>]/.test(t)) return fromXml(t, url);
    return { records: [], note: "not a BoardDocs meetings list" };
  },
};
