/**
 * `npm run screenshots`: the directory's main pages as PNG files under docs/screenshots/, for
 * the README. It seeds a month of invented nights into a throwaway store
 * (scripts/showcase-store.ts), serves the real app on 127.0.0.1 (a free port), and photographs
 * each page with Debian's chromium (/usr/bin/chromium, driven by playwright-core; never a
 * downloaded browser), 1280×800 and, for the home page, 390 px wide as a phone shows it.
 * Nothing leaves the machine: every address in the store is `.example`, and nothing follows it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serve } from "@hono/node-server";
import { chromium } from "playwright-core";
import { openStore } from "../src/store/db.js";
import { createApp } from "../src/web/app.js";
import { LAST_NIGHT, SHOWCASE_NOW, seedShowcase } from "./showcase-store.js";

const CHROMIUM = process.env["NOR_CHROMIUM"] ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const PASSWORD = "screenshots only";
const OUT = resolve(process.argv[2] ?? "docs/screenshots");

interface Shot {
  file: string;
  path: string;
  width?: number;
  height?: number;
  /** The pointer on this element before the picture (the strip's night says its words). */
  hover?: string;
}

const SHOTS: Shot[] = [
  { file: "home.png", path: "/" },
  { file: "home-390.png", path: "/", width: 390, height: 844 },
  { file: "county.png", path: "/counties/Licking" },
  { file: "government.png", path: "/governments/city-of-riverbend" },
  {
    file: "source.png",
    path: "/sources/riverbend-permits",
    hover: `.strip a[data-night="${LAST_NIGHT}"] rect`,
  },
  { file: "search.png", path: "/search?q=bids" },
  { file: "new.png", path: "/new?window=7d" },
  { file: "console.png", path: "/console" },
  { file: "night-report.png", path: `/console/nights/${LAST_NIGHT}` },
];

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no chromium at ${CHROMIUM}: apt-get install -y chromium (or set NOR_CHROMIUM)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "nor-screenshots-"));
  const store = await openStore({ kind: "sqlite", dir });
  let server: ReturnType<typeof serve> | undefined;
  let context: Awaited<ReturnType<typeof chromium.launchPersistentContext>> | undefined;
  try {
    await seedShowcase(store.db);
    let base = "";
    const app = createApp({
      db: store.db,
      now: () => SHOWCASE_NOW,
      origin: () => base,
      console: { password: PASSWORD },
    });
    base = await new Promise<string>((ok) => {
      server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
        ok(`http://127.0.0.1:${info.port}`),
      );
    });
    context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    mkdirSync(OUT, { recursive: true });
    let signedIn = false;
    for (const s of SHOTS) {
      if (s.path.startsWith("/console") && !signedIn) {
        await page.goto(`${base}/console/sign-in`);
        await page.getByLabel("Operator password").fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(`${base}/console`);
        signedIn = true;
      }
      await page.setViewportSize({ width: s.width ?? 1280, height: s.height ?? 800 });
      const res = await page.goto(`${base}${s.path}`);
      if (res?.status() !== 200) throw new Error(`${s.path} answered ${res?.status()}`);
      if (s.hover) await page.locator(s.hover).hover();
      const file = join(OUT, s.file);
      await page.screenshot({ path: file, animations: "disabled" });
      process.stdout.write(`${file} (${Math.round(statSync(file).size / 1024)} KiB)\n`);
    }
  } finally {
    await context?.close();
    if (server) {
      const s = server;
      if ("closeAllConnections" in s) s.closeAllConnections();
      await new Promise<void>((done) => s.close(() => done()));
    }
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`screenshots: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
