import type { RequestLogEntry } from "../../src/net/types.js";
import { entry } from "../store/entries.js";

/**
 * The site owner's question (P27): "what did your checker request from us at 03:12 on Nov 5?",
 * asked of a log of 100,000 attempts.
 */
/** New York wall time on 2026-11-05 (EST, UTC−5) as epoch ms. */
export const ny = (hh: number, mm: number, ss = 0, ms = 0) =>
  Date.UTC(2026, 10, 5, hh + 5, mm, ss, ms);
const WINDOW_START = ny(3, 10, 30);
const WINDOW_END = ny(3, 14, 30);

/** The rows the site owner's question must find, and the near misses it must not. */
export const wanted: RequestLogEntry[] = [
  entry({ startedAt: ny(3, 11), url: "https://example.gov/robots.txt", purpose: "robots" }),
  entry({
    startedAt: ny(3, 12, 4),
    status: 503,
    outcome: "retry",
    url: "https://example.gov/bids",
  }),
  entry({ startedAt: ny(3, 12, 9), attempt: 2, url: "https://example.gov/bids" }),
  entry({ startedAt: ny(3, 13, 59, 999), url: "https://example.gov/agendas?page=2" }),
];
export const nearMisses: RequestLogEntry[] = [
  entry({ startedAt: ny(3, 10, 59, 999), url: "https://example.gov/early" }),
  entry({ startedAt: ny(3, 14), url: "https://example.gov/late" }),
  entry({ startedAt: ny(3, 12, 4), site: "other.gov", url: "https://other.gov/bids" }),
];

/** 100,000 attempts over three days: 20 sites, example.gov every 10 s outside the window. */
export function background(): RequestLogEntry[] {
  const out: RequestLogEntry[] = [];
  const from = Date.UTC(2026, 10, 4, 5);
  for (let i = 0; out.length < 100_000 - wanted.length - nearMisses.length; i++) {
    const startedAt = from + i * 2_600;
    if (i % 4 === 0) {
      if (startedAt >= WINDOW_START && startedAt < WINDOW_END) continue;
      out.push(entry({ startedAt, url: `https://example.gov/page/${i}` }));
    } else {
      const site = `site-${i % 19}.gov`;
      out.push(entry({ startedAt, site, origin: `https://${site}`, url: `https://${site}/${i}` }));
    }
  }
  return out;
}
