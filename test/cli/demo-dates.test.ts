import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { demoSources } from "../../src/demo/sites.js";
import { extractFeed } from "../../src/sources/extract/feed.js";
import { dateEt } from "../../src/web/public/format.js";

/**
 * The demo's invented public-notices feed (CivicPlus-shaped) gives each notice a posting time
 * on its own day, as a real CivicPlus feed's pubDate is, so the directory shows the day it means.
 * Written as midnight UTC, each one was shown on the evening before (docs/catalog.md: a time in
 * UTC is the instant it names).
 */
describe("nor demo's notices feed", () => {
  it("gives posting times the directory shows on the notices' own days", () => {
    const today = Date.parse("2026-12-02T00:00:00Z");
    const source = demoSources(today).find((s) => s.id === "harmon-county-notices");
    expect(source).toBeDefined();
    let body = "";
    const res = {
      writeHead: () => res,
      end: (b: string) => {
        body = b;
      },
    };
    source?.handle(
      { headers: { host: "127.0.0.1" } } as unknown as IncomingMessage,
      "",
      res as unknown as ServerResponse,
      1,
    );
    const records = extractFeed(
      new TextEncoder().encode(body),
      "http://127.0.0.1/RSSFeed.aspx",
    ).records;
    // Posted 1, 8 and 15 days before the demo's day.
    expect(records.map((r) => dateEt(r.date ?? null))).toEqual([
      "Dec 1, 2026",
      "Nov 24, 2026",
      "Nov 17, 2026",
    ]);
  });
});
