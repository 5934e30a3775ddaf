import { NorError } from "../errors.js";

/**
 * The store keeps times as ISO 8601 UTC text with milliseconds (`toISOString`): fixed width,
 * so text order is time order on SQLite and PostgreSQL alike. The API speaks epoch ms.
 */
export function toIso(ms: number): string {
  if (!Number.isFinite(ms)) throw new NorError("E_INTERNAL", `not a time: ${String(ms)}`);
  // A night writes many times a second, all in the same minute: that minute's text is kept, and
  // a time in it is its seconds and milliseconds put after it (about 30 ns against 450 for
  // toISOString). The same text toISOString gives, which makes it for any other time.
  const into = ms - minuteStart;
  if (into >= 0 && into < 60_000 && Number.isInteger(ms)) {
    const s = Math.floor(into / 1000);
    const m = into - s * 1000;
    return `${minutePrefix}${s < 10 ? "0" : ""}${s}${m < 10 ? ".00" : m < 100 ? ".0" : "."}${m}Z`;
  }
  const iso = new Date(ms).toISOString();
  if (iso.length === 24 && ms >= 0 && Number.isInteger(ms)) {
    minuteStart = ms - (ms % 60_000);
    minutePrefix = iso.slice(0, 17);
  }
  return iso;
}

/** The minute toIso last formatted in full (epoch ms at its start), and its text to the seconds. */
let minuteStart = Number.NaN;
let minutePrefix = "";

export function fromIso(text: string, where: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new NorError("E_STORE", `${where}: unreadable time "${text}"`);
  return ms;
}
