import { describe, expect, it } from "vitest";
import { parseCookieDate } from "../../src/policy/cookie-date.js";

describe("parseCookieDate (RFC 6265 §5.1.1, for P22 expiry)", () => {
  const T = Date.UTC(2026, 10, 5, 8, 42, 4);
  const rows: [string, number | undefined][] = [
    ["Thu, 05 Nov 2026 08:42:04 GMT", T],
    ["Thu, 05-Nov-2026 08:42:04 GMT", T],
    ["Thu, 05-Nov-26 08:42:04 GMT", T],
    ["Thursday, 05-Nov-26 08:42:04 GMT", T],
    ["Thu Nov  5 08:42:04 2026", T],
    ["5 november 2026 8:42:4", T],
    ["Wed, 01 Jan 1970 00:00:00 GMT", 0],
    ["Fri, 31 Dec 99 23:59:59 GMT", Date.UTC(1999, 11, 31, 23, 59, 59)],
    ["Sat, 01 Jan 69 00:00:00 GMT", Date.UTC(2069, 0, 1)],
    ["Thu, 31 Feb 2026 08:42:04 GMT", undefined],
    ["Thu, 05 Nov 2026 24:00:00 GMT", undefined],
    ["Thu, 05 Nov 1600 08:42:04 GMT", undefined],
    ["Thu, 05 Nov 2026", undefined], // no time
    ["08:42:04 2026", undefined], // no day or month
    ["", undefined],
    ["tomorrow", undefined],
  ];
  it.each(rows)("P22: %j → %j", (s, t) => {
    expect(parseCookieDate(s)).toBe(t);
  });
});
