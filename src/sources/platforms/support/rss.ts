/**
 * RSS 2.0 items, read by cutting the text on `<item>` rather than by an XML parser: vendor
 * feeds add their own namespaces (`calendarEvent:`, `gran:`) and are not always well-formed,
 * and a feed URL sometimes answers with an HTML page, which must be reported, not read as an
 * empty feed. One pass over the text; no DOM.
 */
import { looksLikeHtml } from "../../extract/decode.js";
import { cleanText } from "../../record-id.js";

export interface RssItem {
  /** Text of a child element by its qualified name (`title`, `calendarEvent:EventDates`). */
  get(name: string): string | undefined;
  /** An attribute of a (self-closing or not) child element. */
  attr(name: string, attribute: string): string | undefined;
}

export type RssRead =
  | { ok: true; items: RssItem[]; channelTitle?: string }
  | { ok: false; why: string };

function unwrap(s: string): string {
  const cdata = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/.exec(s);
  return cleanText(cdata ? cdata[1]! : s);
}

function esc(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function item(chunk: string): RssItem {
  return {
    get(name) {
      const m = new RegExp(`<${esc(name)}(?:\\s[^>]*)?>([\\s\\S]*?)</${esc(name)}>`, "i").exec(
        chunk,
      );
      return m ? unwrap(m[1]!) : undefined;
    },
    attr(name, attribute) {
      const el = new RegExp(`<${esc(name)}\\s[^>]*>`, "i").exec(chunk)?.[0];
      if (!el) return undefined;
      return new RegExp(`\\s${esc(attribute)}=(["'])(.*?)\\1`, "i").exec(el)?.[2];
    },
  };
}

export function readRss(text: string): RssRead {
  const t = text.trimStart();
  if (t === "") return { ok: false, why: "empty body" };
  if (looksLikeHtml(t)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(t)?.[1];
    return {
      ok: false,
      why: `feed URL answered with an HTML page${title ? ` ("${cleanText(title)}")` : ""}, not RSS`,
    };
  }
  if (!/<rss[\s>]|<channel[\s>]/i.test(t.slice(0, 4096)))
    return { ok: false, why: "not an RSS feed" };
  const items: RssItem[] = [];
  const re = /<item(?:\s[^>]*)?>([\s\S]*?)<\/item>/gi;
  for (let m = re.exec(t); m; m = re.exec(t)) items.push(item(m[1]!));
  const head = t.split(/<item[\s>]/i)[0] ?? "";
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1];
  return title ? { ok: true, items, channelTitle: unwrap(title) } : { ok: true, items };
}
