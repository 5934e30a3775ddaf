/**
 * P4: the record of which way in a night used for a source and why each better way was passed
 * over, so an operator reading `nor status` sees "feed (api disallowed by robots.txt)" rather
 * than having to guess why the checker is not using the API the catalog lists. Stored as JSON
 * text beside the outcome (night_sources.way) and read back by `src/store/way-choice.ts`.
 */
import type { WayIn } from "../sources/catalog/types.js";
import type { NightOutcome, WayChoice, WaySkipped, WayUsed } from "./types.js";

export function wayUsed(way: WayIn): WayUsed {
  const used: WayUsed = { access: way.access, url: way.url };
  if (way.platform !== undefined) used.platform = way.platform;
  return used;
}

/** Why a way's attempt did not give tonight's answer, in a person's words. */
export function whySkipped(o: NightOutcome): string {
  switch (o.kind) {
    case "left-alone":
      return "left alone at the site owner's request";
    case "disallowed":
      // P18: never asked at all, by robots.txt (an owner's request is left-alone, above).
      return "disallowed by robots.txt";
    case "gone":
      return `gone (${o.status ?? "no status"})`;
    default: {
      const status = o.status !== undefined && o.status !== null ? ` (${o.status})` : "";
      return `${o.kind}${status}${o.reason ? `: ${o.reason}` : ""}`;
    }
  }
}

export function skipped(way: WayIn, o: NightOutcome): WaySkipped {
  return { access: way.access, url: way.url, why: whySkipped(o) };
}

/** The human "via" column: `feed (api disallowed by robots.txt)`, `-` when nothing was used. */
export function viaText(choice: WayChoice | undefined): string {
  if (!choice) return "-";
  // P11: a catalog URL that moved permanently is asked where it moved, said so.
  const asked = choice.used?.asked ? ` at ${choice.used.asked} (moved permanently)` : "";
  const used = choice.used
    ? `${choice.used.access}${choice.used.platform ? `/${choice.used.platform}` : ""}${asked}`
    : "none";
  if (choice.skipped.length === 0) return used;
  return `${used} (${choice.skipped.map((s) => `${s.access} ${s.why}`).join("; ")})`;
}
