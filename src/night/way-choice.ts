/**
 * P4: the record of which way in a night used for a source and why each better way was passed
 * over, so an operator reading `nor status` sees "feed (api disallowed by robots.txt)" rather
 * than having to guess why the checker is not using the API the catalog lists. Stored as JSON
 * text beside the outcome (night_sources.way); read back defensively, since an operator may
 * have a store written by an older build.
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
    case "disallowed":
      return "disallowed by robots.txt"; // P18: never asked at all
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
  const used = choice.used
    ? `${choice.used.access}${choice.used.platform ? `/${choice.used.platform}` : ""}`
    : "none";
  if (choice.skipped.length === 0) return used;
  return `${used} (${choice.skipped.map((s) => `${s.access} ${s.why}`).join("; ")})`;
}

/** Reads the stored JSON back; a missing or unreadable value is "not recorded". */
export function parseWayChoice(text: string | null): WayChoice | undefined {
  if (text === null || text === "") return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as { used?: unknown; skipped?: unknown };
  const choice: WayChoice = { skipped: [] };
  if (isUsed(o.used)) choice.used = o.used;
  if (Array.isArray(o.skipped)) choice.skipped = o.skipped.filter(isSkipped);
  return choice;
}

function isUsed(v: unknown): v is WayUsed {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o["access"] === "string" &&
    typeof o["url"] === "string" &&
    (o["platform"] === undefined || typeof o["platform"] === "string")
  );
}

function isSkipped(v: unknown): v is WaySkipped {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o["access"] === "string" && typeof o["url"] === "string" && typeof o["why"] === "string"
  );
}
