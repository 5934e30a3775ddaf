/**
 * RFC 6265 §5.1.1: the forgiving cookie-date algorithm for Set-Cookie's Expires attribute.
 * Sites send every date format under the sun ("Thu, 05-Nov-26 08:42:04 GMT", "Thursday,
 * 05 Nov 2026 08:42:04 GMT", …); the RFC's token scan reads them all the way browsers do.
 * Pure: returns ms since the epoch, or undefined when the date cannot be read.
 */

/** §5.1.1 delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E. */
const DELIMITERS = /[\x09\x20-\x2f\x3b-\x40\x5b-\x60\x7b-\x7e]+/;
const TIME = /^(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\D.*)?$/;
const DAY = /^(\d{1,2})(?:\D.*)?$/;
const YEAR = /^(\d{2,4})(?:\D.*)?$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

export function parseCookieDate(value: string): number | undefined {
  let time: [number, number, number] | undefined;
  let day: number | undefined;
  let month: number | undefined;
  let year: number | undefined;
  // A cookie-date has at most a handful of tokens; 32 bounds a hostile value.
  for (const token of value.split(DELIMITERS).slice(0, 32)) {
    if (token === "") continue;
    const tm = time === undefined ? TIME.exec(token) : null;
    const d = !tm && day === undefined ? DAY.exec(token) : null;
    const mon = MONTHS.indexOf(token.slice(0, 3).toLowerCase());
    if (tm) {
      time = [Number(tm[1]), Number(tm[2]), Number(tm[3])];
    } else if (d) {
      day = Number(d[1]);
    } else if (month === undefined && mon >= 0) {
      month = mon;
    } else if (year === undefined) {
      const y = YEAR.exec(token);
      if (y) year = Number(y[1]);
    }
  }
  if (time === undefined || day === undefined || month === undefined || year === undefined) {
    return undefined;
  }
  if (year >= 70 && year <= 99) year += 1900;
  else if (year >= 0 && year <= 69) year += 2000;
  const [h, mi, s] = time;
  if (day < 1 || day > 31 || year < 1601 || h > 23 || mi > 59 || s > 59) return undefined;
  const t = Date.UTC(year, month, day, h, mi, s);
  // Date.UTC treats years 0–99 specially and rolls 31 Feb into March: check what we got.
  const back = new Date(t);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month || back.getUTCDate() !== day) {
    return undefined;
  }
  return t;
}
