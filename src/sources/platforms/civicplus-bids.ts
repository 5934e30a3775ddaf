/**
 * CivicPlus Bid Postings (`/Bids.aspx`): each open bid is a link `Bids.aspx?bidID=<n>` whose
 * text is the bid's title; the id is the bidID. The only real page on hand is the empty state
 * ("There are no open bid postings at this time."), so this preset claims no more than the
 * links and their text: no dates (they are on the bid's own page, which P6 forbids opening).
 */
import { decodeBody } from "../../policy/body-text.js";
import { textOf } from "../extract/select.js";
import type { Extraction, ReadContext } from "../record.js";
import { absoluteUrl, dedupeRecords } from "../record-id.js";
import { visiblePage } from "./support/page.js";
import { makeRecord } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

export const civicplusBids: Platform = {
  name: "civicplus-bids",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    const u = new URL(url);
    if (!/\/bids\.aspx$/i.test(u.pathname)) u.pathname = "/Bids.aspx";
    return { method: "GET", url: u.href, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const text = decodeBody(body, ctx.contentType);
    const $ = visiblePage(text);
    const records = dedupeRecords(
      $("a[href*='bidID=' i]")
        .map((_, a) => {
          const href = $(a).attr("href") ?? "";
          const id = /[?&]bidID=(\d+)/i.exec(href)?.[1];
          const title = textOf($(a));
          const link = absoluteUrl(href, url);
          return id && title && link
            ? makeRecord({ id: `bid:${id}`, title, url: link }, "bids")
            : undefined;
        })
        .get()
        .filter((r) => r !== undefined),
    );
    if (records.length > 0) return { records };
    const empty = /There are no open bid postings at this time\./i.exec(text)?.[0];
    return { records, note: empty ?? "no bid links on this page" };
  },
};
