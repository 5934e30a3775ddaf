/**
 * P11: a catalog URL that moved permanently (301, 308) is asked where it moved (SourceHistory
 * `moved`, kept in source_moves). What finds a URL's move, and what an answer changes of it, for
 * every request that asks a way's own first page: a night's (check-source.ts), a backfill's other
 * way opened (ownFirstPage) and a recheck's (recheck.ts, P25).
 */
import type { FetchOutcome } from "../net/types.js";
import { isSiteClosedReason } from "./outcome.js";
import { keptAs } from "./reader.js";
import { type MoveChange, type Moved, type NightOutcome, NOT_JUDGED_OUTCOMES } from "./types.js";
import { whySkipped } from "./way-choice.js";

/**
 * The move remembered for a catalog URL, however either is written: compared in the URL's one
 * normal form (policy/url-form.ts, as sent and kept: no fragment, `%76` as `v`), so a catalog
 * URL written again as another form of the same address finds its move. Its `from` is the key it
 * is kept under (forgotten by it).
 */
export function movedFrom(moved: readonly Moved[] | undefined, url: string): Moved | undefined {
  if (moved === undefined || moved.length === 0) return undefined;
  const at = keptAs(url);
  return moved.find((m) => m.from === url) ?? moved.find((m) => keptAs(m.from) === at);
}

/** Where a catalog URL is asked: where it moved permanently, else itself. */
export function askedAt(moved: readonly Moved[] | undefined, url: string): string {
  return movedFrom(moved, url)?.to ?? url;
}

/**
 * P11: what an answer to a way's own first page changes of its catalog URL's move. Asked at the
 * catalog's URL (`moved` undefined): a page read after permanent redirects only (every hop 301
 * or 308) is remembered where it answered. Asked at a remembered target: one that fails (gone,
 * refused, disallowed, an error after retries, …) or now redirects elsewhere is forgotten, so the
 * next asking goes to the catalog's URL again (never both in one night: at most one request
 * more, once). An asking that says nothing of the page (not reached, cut short, the checker
 * offline, never sent, robots.txt unreadable, its site's no earlier tonight) changes nothing;
 * nor does a page that opens but cannot be read (its address answered). `failed`: the asking's
 * failure as the night judged it, if it failed; `o` the fetcher's last answer to it.
 */
export function moveChange(
  from: string,
  moved: Moved | undefined,
  failed: NightOutcome | undefined,
  o: FetchOutcome | undefined,
): MoveChange | undefined {
  if (moved === undefined) {
    if (failed !== undefined || o === undefined) return undefined;
    if ((o.kind !== "ok" && o.kind !== "not-modified") || o.movedPermanently !== true)
      return undefined;
    return keptAs(o.url) !== keptAs(from) ? { kind: "remember", from, to: o.url } : undefined;
  }
  // Forgotten by the key it is kept under (the catalog URL as written when it was remembered).
  const forget = (why: string): MoveChange => ({
    kind: "forget",
    from: moved.from,
    to: moved.to,
    why,
  });
  if (failed !== undefined) {
    const f = failed;
    // Not asked at all (robots.txt unreadable tonight, P20; its site's no earlier tonight, P21,
    // with what the site said then or without; the deadline), or asked and read but not
    // understood: nothing said of where the page is.
    const notAsked =
      NOT_JUDGED_OUTCOMES.has(f.kind) ||
      f.notSent === true ||
      f.kind === "robots-unavailable" ||
      (f.kind === "refused" && isSiteClosedReason(f.reason));
    if (notAsked || f.kind === "extract-error") return undefined;
    return forget(whySkipped(f));
  }
  if ((o?.kind === "ok" || o?.kind === "not-modified") && o.chain.length > 1)
    return forget(`redirects elsewhere now (to ${o.url})`);
  return undefined;
}

/**
 * P11: the moves kept for URLs the catalog no longer lists for the source (its URL changed: the
 * move is left behind, and the URL, listed again later, asked as written), forgotten; `urls` the
 * source's ways' URLs, `changes` tonight's changes already (never one twice).
 */
export function movesLeftBehind(
  moved: readonly Moved[] | undefined,
  urls: readonly string[],
  changes: readonly MoveChange[],
): MoveChange[] {
  // Most sources have none: no URL parsed for them (CPU a source, docs/benchmarks.md).
  if (moved === undefined || moved.length === 0) return [];
  const listed = new Set(urls.map(keptAs));
  const out: MoveChange[] = [];
  for (const m of moved ?? [])
    if (!listed.has(keptAs(m.from)) && !changes.some((c) => c.from === m.from))
      out.push({ kind: "forget", from: m.from, to: m.to, why: "no longer the catalog's URL" });
  return out;
}
