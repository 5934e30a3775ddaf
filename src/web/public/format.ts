/**
 * How times, dates and outcomes read on the public pages. Times are stored as ISO UTC text;
 * the public reads them in Ohio's wall time (src/policy/zone.ts).
 */

import { TIME_LIMIT_PASSED } from "../../night/outcome.js";
import { OWNER_PACE, OWNERS_REQUEST, SITE_DOWN, SITE_WAIT } from "../../policy/admission.js";
import { recordDay } from "../../policy/record-date.js";

export { isolated } from "../../policy/shown-text.js";

import { SITE_OWNER_ZONE, wallTimeAt } from "../../policy/zone.js";
import { OWN_KINDS } from "../../store/read/directory.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** `Nov 5, 2026 3:12 AM ET` for an ISO instant; the text itself when it does not parse. */
export function timeEt(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const w = wallTimeAt(t, SITE_OWNER_ZONE);
  const h12 = w.hour % 12 === 0 ? 12 : w.hour % 12;
  return `${MONTHS[w.month - 1]} ${w.day}, ${w.year} ${h12}:${pad(w.minute)} ${w.hour < 12 ? "AM" : "PM"} ET`;
}

/**
 * A record's own date, as its government's page wrote it: a bare `YYYY-MM-DD` is already a
 * local date, and so is the date of a local time written with its offset (the readers write
 * the government's own: `2026-02-23T23:30:00-06:00` is a Chicago meeting on Feb 23, not Feb 24
 * as New York's clock would have it). Only an instant written in UTC is shown as its New York
 * date (a meeting at 23:30 UTC is the same evening in Ohio).
 */
export function dateEt(iso: string | null): string {
  if (!iso) return "";
  const day = recordDay(iso);
  if (day === undefined) return iso;
  const [y, m, d] = day.split("-");
  return `${MONTHS[Number(m) - 1]} ${Number(d)}, ${y}`;
}

/**
 * A night key (`2026-11-05`, the date the night began) as `Nov 5`; with its year, `Nov 5, 2025`,
 * when it is not the year of `today` (the night key of now): a night of another year is never
 * written as if it were this year's.
 */
export function nightShort(night: string, today: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(night);
  if (!m) return night;
  const short = `${MONTHS[Number(m[2]) - 1]} ${Number(m[3])}`;
  return today.slice(0, 4) === m[1] ? short : `${short}, ${m[1]}`;
}

/** The label's words for the site's own wait (SITE_WAIT, "the site asked to wait until …"). */
const WAITED = "the site asked to wait";

/** `offline`: the checker's own problem that night, never the site's (P20, P23). */
export type OutcomeTone = "yes" | "no" | "skip" | "trouble" | "offline";

/** The words and the tone of a night's outcome (closed set: src/night/types.ts). */
export function outcomeLabel(
  kind: string,
  /** The outcome's reason: a page left alone at its owner's request is not robots.txt's doing. */
  reason?: string | null,
): { text: string; tone: OutcomeTone } {
  // An owner's request is the operator's decision, never the site's no (P26); a store's nights
  // from before it was kept as `disallowed` keep it as `refused`, with the same reason.
  if ((kind === "disallowed" || kind === "refused") && reason?.startsWith(OWNERS_REQUEST))
    return { text: "left alone at the site owner's request", tone: "skip" };
  switch (kind) {
    case "ok":
      return { text: "yes", tone: "yes" };
    case "unchanged":
      return { text: "yes, unchanged", tone: "yes" };
    case "refused":
      return { text: "no: refused", tone: "no" };
    case "left-alone":
      return { text: "left alone at the site owner's request", tone: "skip" };
    case "robots-unavailable":
      return { text: "no: robots.txt unavailable", tone: "no" };
    case "disallowed":
      return { text: "disallowed by robots.txt", tone: "skip" };
    case "recheck-still-no":
      return { text: "recheck: still no", tone: "no" };
    case "recheck-answers":
      return { text: "recheck: answers again", tone: "yes" };
    case "no-records":
      return { text: "no records shown", tone: "trouble" };
    case "unreached":
      // Not the night's time: the site's own wait (a Retry-After) or its owner's pace.
      if (reason?.startsWith(SITE_WAIT)) return { text: `not asked: ${WAITED}`, tone: "skip" };
      if (reason?.startsWith(OWNER_PACE))
        return { text: "not asked: the site owner's slower pace", tone: "skip" };
      // The site was down that night (a 5xx after a request's retries): not a no (P21).
      // A night's row is read on later days: "that night", never "tonight".
      if (reason?.startsWith(SITE_DOWN))
        return { text: "not asked: the site was down that night", tone: "skip" };
      return { text: "not reached (the night ran out of time)", tone: "skip" };
    case "cut-short":
      // Asked and answered: the reason says what, and what the time limit stopped. A recheck's
      // redirect whose next request was not sent (night/recheck.ts) may have met no time limit:
      // the site it leads to was down, or asked to wait, that night. A recheck whose page
      // answered (a 503) and whose retry was not sent: its own site was found down meanwhile.
      if (reason?.includes(`its retry was not sent: ${SITE_DOWN}`))
        return {
          text: "cut short: the site was down that night (its retry not sent)",
          tone: "skip",
        };
      if (reason?.includes(`was not sent: ${SITE_DOWN}`))
        return {
          text: "cut short: the site its redirect leads to was down that night",
          tone: "skip",
        };
      if (reason?.includes(`was not sent: ${SITE_WAIT}`))
        return { text: "cut short: the site its redirect leads to asked to wait", tone: "skip" };
      if (reason?.includes(`was not sent: ${OWNER_PACE}`))
        return {
          text: "cut short: the slower pace the owner of the site its redirect leads to asked for",
          tone: "skip",
        };
      return { text: "cut short (the night ran out of time)", tone: "skip" };
    case "gone":
      return { text: "gone", tone: "trouble" };
    case "unreachable":
      return { text: "unreachable", tone: "trouble" };
    case "timed-out":
      return { text: "timed out", tone: "trouble" };
    case "too-large":
      return { text: "too large", tone: "trouble" };
    case "extract-error":
      return { text: "could not read the list", tone: "trouble" };
    case "error":
      return { text: "error", tone: "trouble" };
    case "checker-offline":
      return { text: "checker offline (it could not reach the internet)", tone: "offline" };
    default:
      return { text: kind, tone: "trouble" };
  }
}

/**
 * An outcome's reason where it says more than the outcome's own words (outcomeLabel): the
 * reason a night gives robots.txt's plain no (src/night/outcome.ts) says only what "disallowed by
 * robots.txt" says, and a page that wrote both read "disallowed by robots.txt robots.txt
 * disallows it".
 */
export function reasonShown(kind: string, reason: string | null | undefined): string | undefined {
  if (!reason) return undefined;
  if (kind === "disallowed" && reason === "robots.txt disallows it") return undefined;
  // "not reached (the night ran out of time)" says what the night's reason says; "not asked:
  // the site asked to wait" is followed by what its reason adds ("until … New York time …"),
  // never "the site asked to wait the site asked to wait until …".
  if (kind === "unreached" && reason === TIME_LIMIT_PASSED) return undefined;
  if (kind === "unreached" && reason.startsWith(SITE_WAIT))
    return reason.slice(WAITED.length).trimStart();
  // "not asked: the site was down that night" then what it answered, never the words twice.
  if (kind === "unreached" && reason.startsWith(`${SITE_DOWN}: `))
    return reason.slice(SITE_DOWN.length + 2);
  return reason;
}

/**
 * The kinds of records a record's own kind is read as: all but `other` (the store's, which the
 * records filter and the counts by kind read the same way: store/read/directory.ts shownKind).
 */
const OWN = new Set<string>(OWN_KINDS);

/**
 * A record's own kind where it says more than its page's (`agendas` and `minutes` of one
 * meeting on a page of agendas and minutes): one of the kinds of records, compared without case,
 * and not the page's own. Undefined otherwise (none, `other`, or a word of the list's own).
 */
export function ownKind(r: { kind: string | null; sourceRecords: string }): string | undefined {
  const k = r.kind?.toLowerCase();
  return k !== undefined && OWN.has(k) && k !== r.sourceRecords ? k : undefined;
}

/** "bids" → "Bids": the catalog's records kinds as headings. */
export function recordsLabel(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

export const KIND_LABELS: Record<string, string> = {
  county: "County",
  city: "City",
  village: "Village",
  township: "Township",
  "school-district": "School district",
  "special-district": "Special district",
  "state-agency": "State agency",
  other: "Other",
};

/**
 * Only http(s) links become links: a record list on someone else's site could carry a
 * `javascript:` URL, which escaping alone does not neutralise.
 */
export function httpHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** One piece of a catalog entry's evidence, and where it can be seen, when it can. */
export interface EvidencePart {
  text: string;
  href: string | undefined;
}

/**
 * A catalog `evidence` (several joined with ` ; `): each a stored page's address (linked when
 * it is http(s)), or `owner/repo/path@commit` of a public GitHub repository (linked to that
 * file at that commit); anything else stays text.
 */
export function evidenceParts(evidence: string | null | undefined): EvidencePart[] {
  if (!evidence) return [];
  return evidence
    .split(/\s+;\s+/)
    .map((t) => t.trim())
    .filter((t) => t !== "")
    .map((text) => {
      const repo = /^([\w.-]+)\/([\w.-]+)\/([^@\s]+)@([0-9a-f]{7,40})$/i.exec(text);
      if (repo) {
        const [, owner, name, path, commit] = repo;
        const file = path!.split("/").map(encodeURIComponent).join("/");
        return { text, href: `https://github.com/${owner}/${name}/blob/${commit}/${file}` };
      }
      return { text, href: httpHref(text) };
    });
}

/** A county's page: `/counties/Licking`. */
export function countyHref(county: string): string {
  return `/counties/${encodeURIComponent(county)}`;
}

/**
 * A count with its noun, singular or plural as the count asks: `1 record`, `46 records`,
 * `0 records`. `many` for a plural that is not the noun plus "s".
 */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${wordFor(n, one, many)}`;
}

/** The word for `n` of a thing, where the number is shown apart (in its own element). */
export function wordFor(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** The rechecks' pace after the first ones (P25) in words: "once a week", or every so many nights. */
export const onceEveryNights = (n: number): string =>
  n === 7 ? "once a week" : `once every ${n} nights`;
