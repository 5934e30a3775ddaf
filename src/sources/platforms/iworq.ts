/**
 * iWorQ public portal lists (`<town>.portal.iworq.net/<TOWN>/permits/<module>?searchField=…
 * &startDate=YYYY-MM-DD&endDate=YYYY-MM-DD&page=N`). Each row is only a `View` link
 * `/<TOWN>/permit/<module>/<id>`: the list gives ids, no titles, no dates, and P6 forbids
 * opening the permits. So a record is the permit id and its link, titled by the id alone, and
 * the note says the list is ids only. Older pages: the `ul.pagination` `page=N+1` link (P7).
 */
import { decodeBody } from "../../policy/body-text.js";
import type { Extraction, ReadContext } from "../record.js";
import { absoluteUrl, dedupeRecords } from "../record-id.js";
import { visiblePage } from "./support/page.js";
import { makeRecord } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

const ITEM = /\/permit\/(\d+)\/(\d+)(?:[/?#]|$)/;

export const iworq: Platform = {
  name: "iworq",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const $ = visiblePage(decodeBody(body, ctx.contentType));
    const found: ReturnType<typeof makeRecord>[] = [];
    // The table repeats in a mobile copy; ids dedupe it.
    $("a[href*='/permit/']").each((_, a) => {
      const link = absoluteUrl($(a).attr("href"), url);
      const m = link ? ITEM.exec(new URL(link).pathname) : null;
      if (!link || !m) return;
      found.push(
        makeRecord({ id: `permit:${m[1]}/${m[2]}`, title: `Permit ${m[2]}`, url: link }, "permits"),
      );
    });
    const records = dedupeRecords(found);
    const current = Number(new URL(url).searchParams.get("page") ?? 1);
    let next: string | undefined;
    $("ul.pagination a[href]").each((_, a) => {
      const href = absoluteUrl($(a).attr("href"), url);
      if (href && Number(new URL(href).searchParams.get("page")) === current + 1) next ??= href;
    });
    const out: Extraction = {
      records,
      note:
        records.length > 0
          ? "list gives permit ids only: no titles or dates"
          : "no permits on this page",
    };
    if (next && records.length > 0) out.next = next;
    return out;
  },
  nextRequest(_prev, _body, extraction): PlatformRequest | undefined {
    return extraction.next
      ? { method: "GET", url: extraction.next, accept: "text/html" }
      : undefined;
  },
};
