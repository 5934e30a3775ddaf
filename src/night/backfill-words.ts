/**
 * P7: a source's backfill (its older pages) said for the operator, in words (`nor site`, the
 * console's source page) and as JSON (`nor site --json`, `nor status --json`): going on, and
 * how far; or ended, when and why; given up, with the command that asks again.
 */
import { BACKFILL_MISSES, BACKFILL_UNANSWERED_NIGHTS } from "../policy/constants.js";
import type { BackfillState, OverflowPending } from "./types.js";

/** A backfill as `--json` gives it, under names kept stable for scripts (docs/operations.md). */
export interface BackfillJson {
  /**
   * `not-begun`: no night has read its list yet; `reading`: its older pages are read a few a
   * night; `done`: it ended (`why`); `given-up`: it gave up on the page `url` (`why`
   * `gave-up`), until `nor backfill restart`; `off`: paused, the catalog asks for no older
   * pages (they go on by themselves once it asks for some); `retired`: an import retired the
   * source, so no night reads it (its older pages neither).
   */
  state: "not-begun" | "reading" | "done" | "given-up" | "off" | "retired";
  /** Why it ended (night/types.ts BackfillEnd); null while reading, or ended before it was kept. */
  why: "last-page" | "past-end" | "cut-off" | "gave-up" | "off" | null;
  /** The night it ended (YYYY-MM-DD); null while reading, or when not kept. */
  night: string | null;
  pagesRead: number;
  /** Reading: the page asked next; given up: the page it gave up on. */
  url: string | null;
  /** Given up: the failure, in words; reading: the nights the next page failed so far. */
  reason: string | null;
  /** P7, P24: the latest restart by a person (`nor backfill restart`, the console), or null. */
  restarted: { at: string | null; by: string | null; count: number } | null;
  /**
   * P7: a day's overflow carried over (its list's next pages past the first, left unread on the
   * night `since`, read on from `url` the next nights; `failedNights`, `unansweredNights`: the
   * nights that page failed so far), or null: none pending.
   */
  overflow: {
    since: string;
    url: string;
    failedNights: number;
    unansweredNights: number;
  } | null;
  /** The words `nor site` and the console say. */
  text: string;
}

const pages = (n: number) => `${n} older page${n === 1 ? "" : "s"} read`;

/** The operator's words for a source's backfill (P7); `source` names it in the restart command. */
export function backfillText(b: BackfillState | undefined, source: string): string {
  return backfillJson(b, source).text;
}

export function backfillJson(
  b: BackfillState | undefined,
  source: string,
  /** When an import retired the source (StatusRow.retiredAt): no night reads it. */
  retiredAt?: string,
  /** P7: its day's overflow carried over, if one is pending. */
  overflow?: OverflowPending,
): BackfillJson {
  const json = backfillAlone(b, source, retiredAt);
  if (overflow === undefined) return json;
  const o = {
    since: overflow.since,
    url: overflow.cursor.url,
    failedNights: overflow.failedNights ?? 0,
    unansweredNights: overflow.unansweredNights ?? 0,
  };
  const failing = o.failedNights + o.unansweredNights;
  return {
    ...json,
    overflow: o,
    text: `${json.text}; a day's overflow carried over since the night of ${o.since}: read on from ${o.url}${failing > 0 ? ` (it failed ${failing} night${failing === 1 ? "" : "s"} running so far)` : ""}`,
  };
}

function backfillAlone(
  b: BackfillState | undefined,
  source: string,
  retiredAt: string | undefined,
): BackfillJson {
  if (retiredAt !== undefined) {
    const was = backfillAlone(b, source, undefined);
    return {
      ...was,
      state: "retired",
      url: null,
      reason: null,
      text: `older pages: not read: the source is retired ${retiredAt} (no longer in the catalog, so no night reads it), ${pages(b?.pagesRead ?? 0)}`,
    };
  }
  if (b === undefined)
    return {
      state: "not-begun",
      why: null,
      night: null,
      pagesRead: 0,
      url: null,
      reason: null,
      restarted: null,
      overflow: null,
      text: "older pages: not begun (no night has read the list's first page yet)",
    };
  const night = b.ended?.night ?? null;
  const on = night ? ` on the night of ${night}` : "";
  const r = b.restarted;
  const restarted = r ? { at: r.at ?? null, by: r.by ?? null, count: r.count } : null;
  const base = { night, pagesRead: b.pagesRead, restarted, overflow: null };
  // Who asked it again, and when (P24: a person's decision is shown with its time and name).
  const again = r ? ` (restarted${r.by ? ` by ${r.by}` : ""}${r.at ? ` at ${r.at}` : ""})` : "";
  if (!b.done) {
    const failing: string[] = [];
    if (b.failedNights)
      failing.push(
        `it was not read as the page ${b.failedNights} night${b.failedNights === 1 ? "" : "s"} running (${b.lastMiss ? `last: ${b.lastMiss}` : "not allowed, or answered with something else"}; given up at ${BACKFILL_MISSES})`,
      );
    if (b.unansweredNights)
      failing.push(
        `it got no answer ${b.unansweredNights} night${b.unansweredNights === 1 ? "" : "s"} running (given up at ${BACKFILL_UNANSWERED_NIGHTS})`,
      );
    const reason = failing.length > 0 ? failing.join("; ") : null;
    const next = b.cursor?.url ?? null;
    return {
      ...base,
      state: "reading",
      why: null,
      url: next,
      reason,
      text: `older pages: reading a few a night${again}, ${pages(b.pagesRead)}${next ? `; next ${next}` : "; next from the list's first page"}${reason ? `: ${reason}` : ""}`,
    };
  }
  const why = b.ended?.why ?? null;
  switch (why) {
    case "gave-up": {
      const url = b.ended?.url ?? b.cursor?.url ?? null;
      const reason = b.ended?.reason ?? null;
      return {
        ...base,
        state: "given-up",
        why,
        url,
        reason,
        text: `older pages: given up${on}, ${pages(b.pagesRead)}: the older page ${url ?? "(not kept)"} failed${reason ? `, ${reason}` : ""}; \`nor backfill restart ${source}\` asks it again`,
      };
    }
    case "off":
      return {
        ...base,
        state: "off",
        why,
        url: null,
        reason: null,
        text: `older pages: off${on}, ${pages(b.pagesRead)}: the catalog asks for none (backfill.pagesPerNight is 0); paused, they go on by themselves${b.cursor ? ` from ${b.cursor.url}` : ""} the first night it asks for some`,
      };
    default: {
      const how =
        why === "last-page"
          ? "to the list's oldest page"
          : why === "past-end"
            ? `the pages after them showed no records or were gone ${BACKFILL_MISSES} in a row, taken as the list's end`
            : why === "cut-off"
              ? "back to the catalog's cut-off date (backfill.until)"
              : "why it ended was not kept (it ended before this version)";
      return {
        ...base,
        state: "done",
        why,
        url: null,
        reason: null,
        text: `older pages: done${on}, ${pages(b.pagesRead)}, ${how}`,
      };
    }
  }
}

/**
 * Why an "off" backfill is not restarted, in words (`nor backfill restart`, the console): it is
 * paused while the catalog asks for no older pages and goes on by itself once it asks for some;
 * `asked`: what the catalog as imported asks for now, when an import says.
 */
export function offText(asked: number | undefined): string {
  const paused =
    "its older pages are paused because the catalog asked for none (backfill.pagesPerNight 0)";
  if (asked !== undefined && asked > 0)
    return `${paused}; the catalog as imported asks for ${asked} a night again, so they go on by themselves from the next night, no restart needed`;
  if (asked === 0)
    return `${paused}, and still does; they go on by themselves, from where they were, the first night it asks for some`;
  return `${paused}; they go on by themselves, from where they were, the first night it asks for some`;
}
