/**
 * The operator console in Debian's chromium (/usr/bin/chromium, never a downloaded one), signed
 * in through its own form, at 1280 px and at 390 px: axe-core finds no violation of any impact
 * (best practices included) on its pages. A table that scrolls sideways is a labelled region
 * the keyboard reaches and scrolls, even when the table has no link to Tab to (a source's
 * marks, a request-log search by source); a header cell over buttons still says what the
 * column is, to a screen reader.
 *
 * The store is the console tests' own (console-support.ts: a night with a no, an unreached and
 * an open flag) plus what the pages above need: a source marked not read, its request-log
 * attempts, and a site owner's request. One browser, one page, served on 127.0.0.1 (port 0).
 * Without chromium the file fails with the reason; NOR_SKIP_BROWSER=1 skips it, saying so.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { serve } from "@hono/node-server";
import type { AxeResults, RunOptions } from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { entry } from "../store/entries.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";
import { consoleFixture, PASSWORD, seedNight } from "./console-support.js";

const SKIP = process.env["NOR_SKIP_BROWSER"] === "1";
if (SKIP) process.stderr.write("console a11y tests skipped: NOR_SKIP_BROWSER=1\n");

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), {
  encoding: "utf8",
});

/** The source marked not read: its page has a marks table and nothing to Tab to inside it. */
const MARKED = "oh-a-agendas";
/** The source whose request-log attempts the log search lists (a table without links). */
const LOGGED = "oh-b-bids";

/** Every console page with a table, and the request-log form without one. */
const PAGES = [
  "/console",
  "/console/sources",
  `/console/sources/${MARKED}`,
  "/console/flags",
  "/console/sites",
  "/console/nights",
  "/console/log",
  `/console/log?source=${LOGGED}`,
];

// The page's own globals, as far as these tests read them (the project's lib has no DOM).
interface El {
  scrollWidth: number;
  clientWidth: number;
  scrollLeft: number;
  getAttribute(n: string): string | null;
}
declare const document: {
  querySelectorAll(sel: string): ArrayLike<El> & Iterable<El>;
  activeElement: El | null;
  scrollingElement: El | null;
};
declare function getComputedStyle(el: El): { outlineStyle: string; outlineWidth: string };
declare const axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

describe.skipIf(SKIP)("the console's accessibility in Debian's chromium", () => {
  let f: Fixture;
  let base = "";
  let stopApp: () => Promise<void> = async () => {};
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Debian's chromium is not at ${CHROMIUM}: install it (\`apt-get install -y chromium\`; .ci/run does), or set NOR_SKIP_BROWSER=1 to skip the browser tests`,
      );
    }
    f = await consoleFixture();
    await seedNight(f.db);
    const at = f.clock.now();
    await markSource(f.db, {
      source: MARKED,
      reading: false,
      reason: "The clerk asked us by email to pause while the village's site moves",
      by: "operator",
      at,
      night: "2026-11-05",
    });
    await new SqlRequestLog(f.db).appendMany([
      entry({ source: LOGGED, site: "b.gov", origin: "https://b.gov", url: "https://b.gov/bids" }),
      entry({
        source: LOGGED,
        site: "b.gov",
        origin: "https://b.gov",
        url: "https://b.gov/bids?page=2",
        status: 403,
        outcome: "refused",
        evidence: { provider: "cloudflare", verdict: "challenge", reference: "8f1e2a3b4c5d6e7f" },
      }),
    ]);
    await setSiteRule(f.db, {
      site: "a.gov",
      kind: "gap",
      value: "30000",
      reason: "The clerk asked for a slower pace",
      at,
      by: "operator",
    });
    const s = await new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
      const server = serve({ fetch: f.app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              if ("closeAllConnections" in server) server.closeAllConnections();
              server.close(() => done());
            }),
        }),
      );
    });
    base = s.url;
    stopApp = s.close;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30_000,
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: false,
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel("Operator password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/console`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopApp();
    await f?.close();
  });

  // Each page is loaded once and checked at both widths: at 1280 px, then resized to 390 px.
  // The console's pages run no script (its CSP has no script-src), so what a page lays out
  // at 390 px is what its CSS makes of that width, whichever width it was loaded at; and
  // axe-core, injected once a page, runs warm the second time.
  it("axe-core finds no violation of any impact on the console's pages at 1280 px and at 390 px, and none scrolls sideways", async () => {
    const found: string[] = [];
    /** Table boxes that scroll sideways at 390 px: what axe-core's keyboard check looks at. */
    const scrolling: string[] = [];
    for (const p of PAGES) {
      await page.setViewportSize({ width: 1280, height: 800 });
      const res = await page.goto(`${base}${p}`);
      expect(res?.status(), p).toBe(200);
      // Still signed in (a sign-in page would pass axe and check nothing of the console's).
      expect(new URL(page.url()).pathname, p).toBe(new URL(`${base}${p}`).pathname);
      // axe.min.js through the DevTools protocol, not a <script> of the page: the page's CSP
      // stays as served and is tested with it.
      await page.evaluate(AXE_SOURCE);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        const r = await page.evaluate(async (width) => {
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return {
            checked: r.passes.length + r.violations.length,
            violations: r.violations.map(
              (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
            ),
            // The page itself never scrolls sideways (text kept for a screen reader included).
            wide: (document.scrollingElement?.scrollWidth ?? 0) > width,
            scrolling: Array.from(document.querySelectorAll(".table-wrap"))
              .filter((w) => w.scrollWidth > w.clientWidth)
              .map((w) => w.getAttribute("aria-label") ?? "(unnamed)"),
          };
        }, width);
        expect(r.checked, `${p} at ${width} px`).toBeGreaterThan(20);
        for (const v of r.violations) found.push(`${p} at ${width} px: ${v}`);
        if (r.wide) found.push(`${p} at ${width} px: the page scrolls sideways`);
        if (width === 390) for (const s of r.scrolling) scrolling.push(`${p}: ${s}`);
      }
    }
    expect(found).toEqual([]);
    // The marks and the log's attempts do scroll at 390 px: axe-core's keyboard check had them.
    expect(scrolling).toContain(`/console/sources/${MARKED}: Marks`);
    expect(scrolling).toContain(`/console/log?source=${LOGGED}: Attempts found`);
  });

  it("every table box on the console is a region named for its table, in the Tab order", async () => {
    let seen = 0;
    for (const p of PAGES) {
      await page.goto(`${base}${p}`);
      const boxes = await page.locator(".table-wrap").evaluateAll((ws: El[]) =>
        ws.map((w) => ({
          tabindex: w.getAttribute("tabindex"),
          label: w.getAttribute("aria-label"),
        })),
      );
      seen += boxes.length;
      for (const b of boxes) {
        expect(b.tabindex, p).toBe("0");
        expect(b.label, p).toMatch(/\w/);
        // The accessibility tree has it as a region by that name (the cleared flags' table
        // too, folded away in its <details>).
        const region = page.getByRole("region", {
          name: b.label ?? "",
          exact: true,
          includeHidden: true,
        });
        await expect(region.count(), `${p}: ${b.label}`).resolves.toBe(1);
      }
    }
    // The overview's three, the flags' two, and one on each other page with a table.
    expect(seen).toBeGreaterThanOrEqual(8);
  });

  it("at 390 px a source's marks are reached by Tab, shown focused, and scrolled with the arrow keys", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/console/sources/${MARKED}`);
    const marks = page.getByRole("region", { name: "Marks" });
    await expect(marks.locator("table").count()).resolves.toBe(1);
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(
        () => document.activeElement?.getAttribute("aria-label") === "Marks",
      );
    }
    expect(reached, "Tab never reached the marks table").toBe(true);
    const outline = await marks.evaluate((w: El) => {
      const s = getComputedStyle(w);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    expect(outline.style).not.toBe("none");
    expect(outline.width).not.toBe("0px");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => (document.activeElement?.scrollLeft ?? 0) > 0);
  });
});
