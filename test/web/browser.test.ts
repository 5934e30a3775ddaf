// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's innerText() is the text a person sees, which is what these tests read
/**
 * The directory in a real browser: Debian's chromium (/usr/bin/chromium, never a downloaded
 * one) driven by playwright-core, over the real app served on 127.0.0.1 (port 0) from a store
 * seeded the way a night writes it (fixture.ts). A visitor, a phone user, an operator and an
 * attacker: two clicks to a county's bids, search, a strip night read by keyboard, feeds
 * followed and parsed, hostile record text kept inert everywhere (P6: a record's link is shown,
 * never opened, and only when it is http(s)), a person's "not read" shown publicly (P24, P26),
 * CSRF from another origin refused, no sideways scroll at 390 px, and axe-core's serious and
 * critical checks.
 *
 * One browser (one fresh profile) for the whole file, one page reused. Without chromium the
 * file fails with the reason; NOR_SKIP_BROWSER=1 skips it, saying so.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { AxeResults, RunOptions } from "axe-core";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";
import { buildFixture, EVIL, type Fixture, NOW, REFUSAL, SCRIPT_TITLE } from "./fixture.js";

const SKIP = process.env["NOR_SKIP_BROWSER"] === "1";
if (SKIP) {
  process.stderr.write("browser tests skipped: NOR_SKIP_BROWSER=1\n");
}

const PASSWORD = "correct horse battery staple";
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), {
  encoding: "utf8",
});

// The page's own globals, as far as these tests read them (the project's lib has no DOM).
interface El {
  tagName: string;
  textContent: string | null;
  querySelector(sel: string): El | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(n: string): string | null;
  closest(sel: string): El | null;
  matches(sel: string): boolean;
  getBoundingClientRect(): { top: number; bottom: number; left: number; right: number };
}
declare const document: {
  querySelectorAll(sel: string): ArrayLike<El> & Iterable<El>;
  querySelector(sel: string): El | null;
  activeElement: El | null;
  scrollingElement: { scrollWidth: number; clientWidth: number } | null;
  body: { innerText: string };
};
declare const window: { innerHeight: number; innerWidth: number; location: { hash: string } };
declare function getComputedStyle(el: El): { strokeWidth: string };
declare const axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };

/** The public pages and the console's, each visited for the layout and accessibility checks. */
const PUBLIC_PAGES = [
  "/",
  "/governments",
  "/counties/Franklin",
  "/governments/village-of-test",
  "/sources/test-bids",
  "/sources/evil-notices",
  "/search?q=record",
  "/new",
  "/new?window=30d",
  "/downloads",
  "/site-owners",
  "/no-such-page",
];
const CONSOLE_PAGES = [
  "/console",
  "/console/sources",
  "/console/sources/test-bids",
  "/console/flags",
  "/console/sites",
  "/console/nights",
  "/console/nights/2026-11-05",
  "/console/log",
];

/** The main pages axe-core looks at (the others share their templates). */
const AXE_PAGES = new Set([
  "/",
  "/governments",
  "/counties/Franklin",
  "/governments/village-of-test",
  "/sources/test-bids",
  "/search?q=record",
  "/new",
  "/site-owners",
  "/console",
  "/console/sources/test-bids",
  "/console/nights/2026-11-05",
  "/console/sign-in?signed-out",
]);

function listen(fetch: (r: Request) => Response | Promise<Response>): Promise<{
  url: string;
  close: () => Promise<void>;
}> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe.skipIf(SKIP)("the directory in Debian's chromium", () => {
  let fx: Fixture;
  let base = "";
  let stopApp: () => Promise<void> = async () => {};
  let context: BrowserContext;
  let page: Page;
  let profile = "";
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Debian's chromium is not at ${CHROMIUM}: install it (\`apt-get install -y chromium\`; .ci/run does), or set NOR_SKIP_BROWSER=1 to skip the browser tests`,
      );
    }
    fx = await buildFixture(undefined, { scriptRecord: true });
    // The app as `nor serve` builds it: feeds' links from the address it listens on.
    const app = createApp({
      db: fx.store.db,
      now: () => NOW,
      origin: () => base,
      console: { password: PASSWORD },
    });
    const s = await listen(app.fetch);
    base = s.url;
    stopApp = s.close;
    profile = mkdtempSync(join(tmpdir(), "nor-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
      acceptDownloads: false,
      timeout: 30_000,
    });
    context.setDefaultTimeout(10_000);
    // A dialog would mean a script of someone else's ran in our page.
    context.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await stopApp();
    await fx?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const go = async (path: string, status = 200) => {
    const res = await page.goto(`${base}${path}`);
    expect(res?.status(), path).toBe(status);
    return res;
  };

  const signIn = async () => {
    await page.goto(`${base}/console`);
    if (new URL(page.url()).pathname === "/console/sign-in") {
      await page.getByLabel("Operator password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/console`);
    }
  };

  /** Every attribute in the page that would run script if followed or loaded. */
  const scriptyAttributes = () =>
    page.evaluate(() => {
      const out: string[] = [];
      for (const el of document.querySelectorAll("*")) {
        for (const a of Array.from(el.attributes)) {
          if (/^on/i.test(a.name) || /^\s*(javascript|vbscript|data):/i.test(a.value)) {
            out.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value}">`);
          }
        }
      }
      return out;
    });

  it("from home to a county's bids in two clicks", async () => {
    await go("/");
    await page.locator("ul.counties").getByRole("link", { name: "Franklin" }).click();
    await page.waitForURL(`${base}/counties/Franklin`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Franklin County");
    await page
      .locator("#gov-village-of-test")
      .getByRole("link", { name: "Bids", exact: true })
      .click();
    await page.waitForURL(`${base}/sources/test-bids`);
    expect(await page.locator("h1").innerText()).toBe("Bids · Village of Test");
    // P26 / P23: the public page's link is there, and last night's no with its evidence.
    await expect(page.locator(".public-link a").getAttribute("href")).resolves.toBe(
      "https://test.example/bids",
    );
    expect(await page.locator(".last-no").innerText()).toContain(REFUSAL.reference);
  });

  it("search: the home page's kind of query finds a county's bids page; the header box finds a government; titles link out", async () => {
    // "bids Franklin": the kind of records and the county, as the home page's example says.
    await go("/");
    await page.getByRole("searchbox", { name: /Search governments/ }).fill("bids Franklin");
    await page.getByRole("main").getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/search\?q=bids\+Franklin$/);
    const found = page.locator(".found-sources li");
    await expect(found.count()).resolves.toBe(1);
    expect(await found.innerText()).toContain("Village of Test");
    await found.getByRole("link").click();
    await page.waitForURL(`${base}/sources/test-bids`);

    await go("/governments");
    await page.getByRole("searchbox", { name: "Search the directory" }).fill("Akron");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/search\?q=Akron$/);
    await page.locator(".found-governments").getByRole("link", { name: "City of Akron" }).click();
    await page.waitForURL(`${base}/governments/city-of-akron`);

    await go("/search");
    await page.getByRole("searchbox", { name: /Search governments/ }).fill("record 31");
    await page.getByRole("main").getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/search\?q=record\+31$/);
    const first = page.locator("table.new tbody tr").first();
    expect(await first.locator("a.record").innerText()).toBe("Record 31");
    await expect(first.locator("a.record").getAttribute("href")).resolves.toBe(
      "https://test.example/r/31",
    );
    expect(await page.locator("#record-total").innerText()).toMatch(
      /^1 record matches, best first/,
    );
  });

  it("P23: each night is said once (axe-core and the accessibility tree agree), reached by Tab through the table or a tap on the strip, with its outcome and reason; Enter opens its row", async () => {
    await go("/sources/test-bids");
    // The accessibility tree: the strip names no night, and each of the 30 nights is one row
    // of the table, named nowhere else in it (the strip says nothing the table does not).
    const strip = await page.locator("figure.strip").ariaSnapshot();
    const tree = await page.locator("table.nights").ariaSnapshot();
    const lines = tree.split("\n");
    const indent = (l: string) => l.length - l.trimStart().length;
    const nights = await page.locator("table.nights tbody tr > :first-child").allInnerTexts();
    expect(nights).toHaveLength(30);
    for (const n of nights) {
      const re = new RegExp(`\\b${n}(?!\\d)`);
      expect(re.test(strip), `${n} said by the strip too:\n${strip}`).toBe(false);
      const hits = lines.flatMap((l, i) => (re.test(l) ? [i] : []));
      const rows = hits.filter((i) => /^\s*- '?row\b/.test(lines[i] ?? ""));
      expect(rows, `${n} in:\n${tree}`).toHaveLength(1);
      const at = rows[0] ?? 0;
      const depth = indent(lines[at] ?? "");
      let end = at + 1;
      while (end < lines.length && indent(lines[end] ?? "") > depth) end++;
      const outside = hits.filter((i) => i < at || i >= end).map((i) => lines[i]);
      expect(outside, `${n} said outside its row`).toEqual([]);
    }
    // axe-core on the nights' section: no violation of any impact.
    await page.evaluate(AXE_SOURCE);
    const found = await page.evaluate(async () => {
      const r = await axe.run(document.querySelector("section.nights-block"), {
        resultTypes: ["violations"],
      });
      return {
        checked: r.passes.length + r.violations.length,
        violations: r.violations.map((v) => `${v.id} (${v.impact})`),
      };
    });
    expect(found.checked).toBeGreaterThan(5);
    expect(found.violations).toEqual([]);
    // Tab from the top until focus lands on the night of Nov 5 (bounded).
    let row: string | null = null;
    for (let i = 0; i < 80 && row === null; i++) {
      await page.keyboard.press("Tab");
      row = await page.evaluate(() => {
        const a = document.activeElement;
        return a?.getAttribute("data-night") === "2026-11-05"
          ? (a.closest("tr")?.getAttribute("id") ?? null)
          : null;
      });
    }
    expect(row, "Tab never reached the night of Nov 5").toBe("night-2026-11-05");
    // The focused night's row says its outcome and reason, and the strip outlines its cell, only it.
    const focused = page.locator("tr:focus-within");
    await expect(focused.count()).resolves.toBe(1);
    const words = await focused.innerText();
    expect(words).toContain("no: refused");
    expect(words).toContain(REFUSAL.reason);
    const outlined = () =>
      page.locator(".strip a").evaluateAll((as: El[]) =>
        as
          .filter((a) => {
            const r = a.querySelector("rect");
            return r !== null && getComputedStyle(r).strokeWidth === "2px";
          })
          .map((a) => a.getAttribute("data-night")),
      );
    await expect(outlined()).resolves.toEqual(["2026-11-05"]);
    // Tab: the night before (no other stop between two nights).
    await page.keyboard.press("Tab");
    await expect(
      page.evaluate(() => document.activeElement?.getAttribute("data-night") ?? null),
    ).resolves.toBe("2026-11-04");
    await expect(outlined()).resolves.toEqual(["2026-11-04"]);
    await expect(focused.innerText()).resolves.toContain("yes");

    // Shift+Tab back, Enter opens the night's row: in view, marked as the target.
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base}/sources/test-bids#night-2026-11-05`);
    const target = page.locator("#night-2026-11-05");
    await expect(target.isVisible()).resolves.toBe(true);
    const inView = await page.evaluate(() => {
      const r = document.querySelector("#night-2026-11-05")?.getBoundingClientRect();
      return r !== undefined && r.top >= 0 && r.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);
    expect(await target.evaluate((el: El) => el.matches(":target"))).toBe(true);
    const text = await target.innerText();
    expect(text).toContain("no: refused");
    expect(text).toContain(REFUSAL.reason);
    expect(text).toContain(REFUSAL.reference);

    // Touch and pointer: a night on the strip says its words while pointed at, and a tap
    // opens its row.
    await go("/sources/test-bids");
    const cell = page.locator(".strip a[data-night='2026-11-05'] rect");
    await cell.hover();
    const shown = page.locator(".strip .words").filter({ visible: true });
    await expect(shown.count()).resolves.toBe(1);
    await expect(shown.textContent()).resolves.toBe(`Nov 5: no: refused: ${REFUSAL.reason}`);
    await page.locator(".strip a[data-night='2026-11-04'] rect").click();
    await page.waitForURL(`${base}/sources/test-bids#night-2026-11-04`);
    expect(
      await page.locator("#night-2026-11-04").evaluate((el: El) => el.matches(":target")),
    ).toBe(true);
    // Every night on the strip has its own words for a pointer (never color alone).
    const names = await page
      .locator(".strip a title")
      .evaluateAll((ts: El[]) => ts.map((t) => t.textContent ?? ""));
    expect(names).toHaveLength(30);
    expect(names.slice(-3)).toEqual([
      "Nov 3: yes",
      "Nov 4: yes",
      `Nov 5: no: refused: ${REFUSAL.reason}`,
    ]);
  });

  it("a county's feed links are followed and parse as Atom, RSS and JSON Feed, linking from the served origin", async () => {
    await go("/counties/Franklin");
    const feeds = page.locator("p.feeds");
    const hrefOf = async (name: string) => {
      const href = await feeds.getByRole("link", { name, exact: true }).getAttribute("href");
      return new URL(href ?? "", page.url()).href;
    };
    const get = async (name: string, type: RegExp) => {
      const url = await hrefOf(name);
      const res = await page.request.get(url);
      expect(res.status(), url).toBe(200);
      expect(res.headers()["content-type"]).toMatch(type);
      return { url, text: await res.text() };
    };
    const atom = await get("Atom", /^application\/atom\+xml/);
    expect(atom.url).toBe(`${base}/new.atom?county=Franklin`);
    const a = parseAtomFeed(atom.text);
    expect(a.links?.find((l) => l.rel === "self")?.href).toBe(atom.url);
    const titles = a.entries?.map((e) => e.title?.value) ?? [];
    expect(titles).toContain("Record 12");
    expect(titles).not.toContain("Record 40"); // Summit County's, not Franklin's
    const rss = parseRssFeed((await get("RSS", /^application\/rss\+xml/)).text);
    expect(rss.items?.map((i) => i.title)).toEqual(titles);
    const json = parseJsonFeed((await get("JSON Feed", /^application\/feed\+json/)).text);
    expect(json.items?.map((i) => i.title)).toEqual(titles);
    expect(json.home_page_url).toBe(`${base}/new?county=Franklin`);
    // The <link rel=alternate> in the head names the same feed.
    await expect(
      page.locator('head link[type="application/atom+xml"]').getAttribute("href"),
    ).resolves.toBe("/new.atom?county=Franklin");
  });

  it("P6: a record titled <script>alert(1)</script> with a javascript: link is inert text on every page, feed and API answer", async () => {
    // Pages listing the record show its title; pages listing the township show its name.
    const pages: [string, string][] = [
      ["/", SCRIPT_TITLE],
      ["/new", SCRIPT_TITLE],
      ["/sources/evil-notices", SCRIPT_TITLE],
      ["/search?q=script+alert", SCRIPT_TITLE],
      ["/governments", EVIL],
      ["/counties/Summit", EVIL],
      ["/governments/evil-township", EVIL],
    ];
    for (const [p, shown] of pages) {
      await go(p);
      const text = await page.locator("body").innerText();
      expect(text, p).toContain(shown);
      // The title is text: no script element anywhere (the site has none of its own).
      expect(await page.locator("script").count(), p).toBe(0);
      expect(await scriptyAttributes(), p).toEqual([]);
    }
    await signIn();
    for (const p of ["/console", "/console/sources", "/console/sources/evil-notices"]) {
      await go(p);
      expect(await page.locator("script").count(), p).toBe(0);
      expect(await scriptyAttributes(), p).toEqual([]);
    }
    // Feeds and API: opened in the browser too (no dialog), then read as data.
    const answers = [
      "/new.atom",
      "/new.rss",
      "/new.json",
      "/search.atom?q=script+alert",
      "/search.json?q=script+alert",
      "/api/new",
      "/api/sources/evil-notices",
      "/api/search?q=script+alert",
      "/api/counties/Summit",
      "/downloads/records.json",
      "/downloads/records.csv",
    ];
    for (const p of answers) {
      const res = await page.request.get(`${base}${p}`);
      expect(res.status(), p).toBe(200);
      const body = await res.text();
      expect(body, p).not.toMatch(/javascript:/i);
      // Never served as something a browser would run: nosniff on every answer.
      expect(res.headers()["x-content-type-options"], p).toBe("nosniff");
      expect(res.headers()["content-type"], p).not.toMatch(/html/);
      if (/\.(atom|rss)\b/.test(p)) {
        // In XML the title is character data (escaped, or in CDATA), never an element.
        const outsideCdata = body.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, "");
        expect(outsideCdata, p).not.toMatch(/<script/i);
      }
      if (p.endsWith(".atom")) {
        const entries = parseAtomFeed(body).entries ?? [];
        const e = entries.find((x) => x.title?.value === SCRIPT_TITLE);
        expect(e, p).toBeDefined();
        expect(e?.links?.[0]?.href).toBe(`${base}/sources/evil-notices`);
      }
      if (p.endsWith(".rss")) {
        expect(
          parseRssFeed(body).items?.some((i) => i.title === SCRIPT_TITLE),
          p,
        ).toBe(true);
      }
      if (p.endsWith(".json") && p !== "/downloads/records.json") {
        const item = parseJsonFeed(body).items?.find((i) => i.title === SCRIPT_TITLE);
        expect(item?.url, p).toBe(`${base}/sources/evil-notices`);
      }
    }
    for (const p of ["/new.atom", "/api/new", "/api/sources/evil-notices"]) {
      await page.goto(`${base}${p}`);
      expect(await page.locator("script").count(), p).toBe(0);
    }
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("P24, P26: the operator signs in, marks a source not read with a reason, and the public page shows it", async () => {
    await context.clearCookies();
    await page.goto(`${base}/console/sources/test-agendas`);
    await page.waitForURL(`${base}/console/sign-in`);
    await page.getByLabel("Operator password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/console`);
    await go("/console/sources/test-agendas");
    const reason = "The clerk asked us by email to pause while the site moves";
    await page.getByLabel(/^Reason/).fill(reason);
    await page.getByRole("button", { name: "Mark not read" }).click();
    await page.waitForURL(`${base}/console/sources/test-agendas`);
    expect(await page.locator("#reading").innerText()).toBe("not read");

    await page.getByRole("link", { name: "its public page" }).click();
    await page.waitForURL(`${base}/sources/test-agendas`);
    const status = await page.locator(".read-status").innerText();
    expect(status).toContain("not read");
    expect(status).toContain(reason);
    await expect(page.locator(".public-link a").getAttribute("href")).resolves.toBe(
      "https://test.example/agendas.rss",
    );
    await go("/governments/village-of-test");
    expect(await page.locator("#source-test-agendas").innerText()).toContain(reason);
  });

  it("CSRF: a form on another origin posting to the console, even with a leaked token, is refused and changes nothing", async () => {
    await signIn();
    await go("/console/sources/test-bids");
    const token = await page.locator('input[name="csrf"]').first().getAttribute("value");
    expect(token).toMatch(/.{16,}/);
    // Another origin on the same host (another port): the session cookie is sent
    // (SameSite=Strict is per site), so only the Origin check stands in the way.
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!DOCTYPE html><html lang="en"><title>prize</title>
<form method="post" action="${base}/console/sources/test-bids/mark">
<input type="hidden" name="csrf" value="${token}">
<input type="hidden" name="action" value="not-read">
<input type="hidden" name="reason" value="forged">
<button type="submit">Claim your prize</button></form>`);
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    try {
      const port = (attacker.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/console/sources/test-bids/mark")),
        page.getByRole("button", { name: "Claim your prize" }).click(),
      ]);
      expect(res.status()).toBe(403);
      expect(res.request().headers()["origin"]).toBe(`http://127.0.0.1:${port}`);
    } finally {
      attacker.closeAllConnections();
      await new Promise<void>((r) => attacker.close(() => r()));
    }
    await go("/sources/test-bids");
    const status = await page.locator(".read-status").innerText();
    expect(status).toContain("read");
    expect(status).not.toContain("forged");
    expect(
      await fx.store.db
        .selectFrom("marks")
        .select("reason")
        .where("reason", "=", "forged")
        .execute(),
    ).toEqual([]);
  });

  it("a record titled with one unbroken word of 600 characters wraps in its own cell: the date, government and records columns stay in view", async () => {
    const title = `2026_12_01_Regular_Council_Agenda_Packet_FINAL_${"x".repeat(553)}.pdf`;
    await fx.store.db
      .insertInto("records")
      .values({
        source_id: "test-agendas",
        record_id: "long-title",
        title,
        date: "2026-11-05",
        url: null,
        kind: null,
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-05T06:00:00.000Z",
      })
      .execute();
    try {
      await go("/new");
      const m = await page.evaluate(() => {
        const table = document.querySelector("table.new");
        const wrap = table?.closest(".table-wrap");
        const date = document.querySelector("table.new th:nth-child(2)");
        return {
          table: table ? table.getBoundingClientRect().right : 0,
          wrap: wrap ? wrap.getBoundingClientRect().right : 0,
          date: date ? date.getBoundingClientRect().left : Number.POSITIVE_INFINITY,
          width: window.innerWidth,
        };
      });
      expect(m.table).toBeLessThanOrEqual(m.wrap + 1);
      expect(m.date).toBeLessThan(m.width);
    } finally {
      await fx.store.db.deleteFrom("records").where("record_id", "=", "long-title").execute();
    }
  });

  it("every page at 390 px wide: no sideways scroll; axe-core finds no serious or critical violation on the main ones", async () => {
    await signIn();
    const pages = [...PUBLIC_PAGES, ...CONSOLE_PAGES, "/console/sign-in?signed-out"];
    const wide: string[] = [];
    const found: string[] = [];
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const p of pages) {
        // The sign-in page as a signed-out visitor sees it.
        if (p.startsWith("/console/sign-in")) await context.clearCookies();
        await page.goto(`${base}${p}`);
        const m = await page.evaluate(() => {
          const s = document.scrollingElement;
          return { scroll: s?.scrollWidth ?? 0, client: s?.clientWidth ?? 0 };
        });
        if (m.client !== 390 || m.scroll > m.client) wide.push(`${p}: ${m.scroll} > ${m.client}`);
        if (!AXE_PAGES.has(p)) continue;
        // axe.min.js through the DevTools protocol, not a <script> of the page: the page's
        // CSP stays as served and is tested with it.
        await page.evaluate(AXE_SOURCE);
        const r = await page.evaluate(async () => {
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return {
            checked: r.passes.length + r.violations.length,
            violations: r.violations
              .filter((v) => v.impact === "serious" || v.impact === "critical")
              .map(
                (v) =>
                  `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
              ),
          };
        });
        // axe really looked (it checks some 35 to 45 rules on these pages).
        expect(r.checked, p).toBeGreaterThan(20);
        for (const v of r.violations) found.push(`${p}: ${v}`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(wide).toEqual([]);
    expect(found).toEqual([]);
  });
});
