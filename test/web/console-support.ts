import { randomBytes, scryptSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { expect } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { storePasswordHash } from "../../src/web/console/session-store.js";
import { migratedSqliteIn, postgresFactory, postgresUrl } from "../store/stores.js";

export const PASSWORD = "correct horse battery staple";
export const ORIGIN = "http://localhost";

/** With NOR_TEST_POSTGRES_URL set the console suite runs on PostgreSQL, like the store's. */
const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;

/**
 * PASSWORD's hash as the fixtures store it: scrypt, in the stored form hashPassword writes
 * (`scrypt$N$r$p$salt$hash`), at a cost of N = 2^10 instead of hashPassword's 2^15. The cost
 * travels inside the stored text and verifyPassword uses the stored one (password.ts), so
 * every sign-in here still runs the console's own check against a stored scrypt hash, at
 * about 3 ms of CPU instead of about 170 ms (109 sign-ins in the console's files cost the
 * suite some 18 s of CPU). hashPassword's own cost is held by console-cli.test.ts (the hash
 * `nor operator set-password` stores) and the app's `console.password` option still hashes
 * at full cost (browser.test.ts, sign-in-limits.test.ts, console-log.test.ts…).
 */
const FIXTURE_COST = { N: 2 ** 10, r: 8, p: 1 } as const;
const passwordHashes = new Map<string, string>();
export function hashOf(password: string): string {
  let hash = passwordHashes.get(password);
  if (hash === undefined) {
    const salt = randomBytes(16);
    const key = scryptSync(password.normalize("NFC"), salt, 32, FIXTURE_COST);
    const { N, r, p } = FIXTURE_COST;
    hash = ["scrypt", N, r, p, salt.toString("base64url"), key.toString("base64url")].join("$");
    passwordHashes.set(password, hash);
  }
  return hash;
}

/**
 * A fresh store (SQLite in a temp dir, or a PostgreSQL schema), the app over it, a manual clock.
 * The operator's password is set as `nor operator set-password` sets it, and as `nor serve`
 * finds it: its scrypt hash in the store (`{}`: none set), at a lower cost (hashOf). The app's own `console.password` option,
 * which hashes the password anew for every app, is held to the same sign-in by
 * console-cli.test.ts, sign-in-limits.test.ts and browser.test.ts.
 */
export async function consoleFixture(operator: { password?: string } = { password: PASSWORD }) {
  const dir = mkdtempSync(join(tmpdir(), "nor-console-"));
  if (!pg) await migratedSqliteIn(dir);
  const store: Store = await openStore(pg ? await pg.migrated() : { kind: "sqlite", dir });
  const clock = new ManualClock(Date.UTC(2026, 10, 5, 14, 0, 0));
  if (operator.password !== undefined)
    await storePasswordHash(store.db, hashOf(operator.password), clock.now());
  const app = createApp({ db: store.db, now: () => clock.now(), console: {} });
  return {
    dir,
    store,
    db: store.db,
    clock,
    app,
    browser: () => new Browser(app),
    close: async () => {
      await store.close();
      await pg?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A browser by hand: keeps the cookies the console sets (checking their path), sends them back,
 * and sends our own Origin on POSTs unless told otherwise.
 */
export class Browser {
  cookies = new Map<string, string>();
  lastSetCookie: string[] = [];
  readonly #app: Hono;

  constructor(app: Hono) {
    this.#app = app;
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    return { ...(cookie ? { cookie } : {}), ...extra };
  }

  #keep(res: Response): Response {
    this.lastSetCookie = res.headers.getSetCookie();
    for (const sc of this.lastSetCookie) {
      const [pair, ...attrs] = sc.split(";");
      const eq = (pair ?? "").indexOf("=");
      const name = (pair ?? "").slice(0, eq).trim();
      const value = (pair ?? "").slice(eq + 1).trim();
      const maxAge = attrs.find((a) => /max-age/i.test(a));
      if (value === "" || maxAge?.trim() === "Max-Age=0") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string): Promise<Response> {
    return this.#keep(await this.#app.request(path, { headers: this.#headers() }));
  }

  async post(
    path: string,
    /** The form's fields; a URLSearchParams may give one more than once. */
    fields: Record<string, string> | URLSearchParams,
    opts: { origin?: string | null; contentType?: string } = {},
  ): Promise<Response> {
    const origin = opts.origin === undefined ? ORIGIN : opts.origin;
    const headers = this.#headers({
      "content-type": opts.contentType ?? "application/x-www-form-urlencoded",
      ...(origin !== null ? { origin } : {}),
    });
    const body =
      opts.contentType === "application/json"
        ? JSON.stringify(fields instanceof URLSearchParams ? Object.fromEntries(fields) : fields)
        : new URLSearchParams(fields).toString();
    return this.#keep(await this.#app.request(path, { method: "POST", headers, body }));
  }

  async signIn(password = PASSWORD): Promise<Response> {
    return this.post("/console/sign-in", { password });
  }

  /** The CSRF token the page's forms carry. */
  async token(path = "/console"): Promise<string> {
    const res = await this.get(path);
    expect(res.status).toBe(200);
    const m = /name="csrf" value="([^"]+)"/.exec(await res.text());
    if (!m?.[1]) throw new Error(`no csrf field on ${path}`);
    return m[1];
  }
}

/** Two sources on two sites, a finished night with a no and an unreached, and an open flag. */
export async function seedNight(db: Store["db"], night = "2026-11-05"): Promise<void> {
  const at = "2026-11-05T08:00:00.000Z";
  await db
    .insertInto("night_catalog")
    .values([
      {
        source_id: "oh-a-agendas",
        government: "Village of A",
        url: "https://www.a.gov/agendas",
        site: "a.gov",
        updated_at: at,
      },
      {
        source_id: "oh-b-bids",
        government: "City of B",
        url: "https://b.gov/bids",
        site: "b.gov",
        updated_at: at,
      },
      {
        source_id: "oh-c-minutes",
        government: "County C",
        url: "https://c.gov/min",
        site: "c.gov",
        updated_at: at,
      },
    ])
    .execute();
  await db
    .insertInto("nights")
    .values({
      night,
      started_at: at,
      deadline_at: "2026-11-05T10:00:00.000Z",
      finished_at: "2026-11-05T09:00:00.000Z",
      runs: 1,
    })
    .execute();
  const base = {
    night,
    reason: null,
    evidence: null,
    status: 200,
    url: null,
    way: null,
    records_found: 3,
    new_records: 1,
    started_at: at,
    ended_at: at,
    duration_ms: 10,
  };
  await db
    .insertInto("night_sources")
    .values([
      { ...base, source_id: "oh-a-agendas", outcome: "ok" },
      {
        ...base,
        source_id: "oh-b-bids",
        outcome: "refused",
        status: 403,
        reason: "challenge page",
        evidence: JSON.stringify({
          provider: "cloudflare",
          verdict: "challenge",
          reference: "8f1e2a3b4c5d6e7f",
        }),
        records_found: 0,
        new_records: 0,
      },
      {
        ...base,
        source_id: "oh-c-minutes",
        outcome: "unreached",
        reason: "the night's time limit passed",
        records_found: 0,
        new_records: 0,
      },
    ])
    .execute();
  await db
    .insertInto("flags")
    .values({
      id: `${night}:no-3-nights:oh-b-bids`,
      source_id: "oh-b-bids",
      kind: "no-3-nights",
      night,
      detail: "refused on 3 nights running",
      raised_at: "2026-11-05T09:00:00.000Z",
      cleared_at: null,
      cleared_by: null,
    })
    .execute();
}
