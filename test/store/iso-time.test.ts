import { describe, expect, it } from "vitest";
import { fromIso, toIso } from "../../src/store/iso-time.js";

describe("toIso", () => {
  it("writes what toISOString writes, for times in the same minute, across minutes and out of range", () => {
    const base = Date.UTC(2026, 11, 5, 6, 59, 58, 990);
    const times: number[] = [];
    for (let i = 0; i < 5000; i++) times.push(base + i * 7); // crosses 07:00:00.000
    times.push(base - 60_000, base, base + 60_000 - 1, base + 60_000, base + 59_999);
    times.push(0, 1, 999, 1000, 59_999, 60_000, -1, -60_000, -62_198_755_200_000);
    times.push(253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15);
    times.push(base + 0.5, base + 1.999, base - 0.25);
    for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 4e12));
    for (const ms of times) expect(toIso(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it("refuses what is not a time, and fromIso reads back what it writes", () => {
    expect(() => toIso(Number.NaN)).toThrow(/not a time/);
    expect(() => toIso(Number.POSITIVE_INFINITY)).toThrow(/not a time/);
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    expect(fromIso(toIso(at), "t")).toBe(at);
    expect(toIso(at + 1)).toBe("2026-01-02T03:04:05.007Z");
  });
});
