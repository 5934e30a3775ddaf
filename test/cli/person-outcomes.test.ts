import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * `nor mark` and `nor flags --clear` word each outcome of the store for a terminal: a change
 * on stdout (exit 0); what the person typed that changed nothing on stderr (exit 2); a store
 * that fails is a failure while working (exit 1), never "unknown source". In-process.
 */
const FLAG = "2026-11-05:no-3-nights:oh-b-bids";
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-person-"));
  const store = await openStore({ kind: "sqlite", dir });
  try {
    await store.db
      .insertInto("night_catalog")
      .values({
        source_id: "oh-b-bids",
        government: "City of B",
        url: "https://b.gov/bids",
        site: "b.gov",
        updated_at: "2026-11-05T08:00:00.000Z",
      })
      .execute();
    await store.db
      .insertInto("flags")
      .values({
        id: FLAG,
        source_id: "oh-b-bids",
        kind: "no-3-nights",
        night: "2026-11-05",
        detail: "refused on 3 nights running",
        raised_at: "2026-11-05T09:00:00.000Z",
        cleared_at: null,
        cleared_by: null,
      })
      .execute();
  } finally {
    await store.close();
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const breakTable = async (table: "marks" | "flags") => {
  const store = await openStore({ kind: "sqlite", dir }, { create: false });
  try {
    await sql`drop table ${sql.table(table)}`.execute(store.db);
  } finally {
    await store.close();
  }
};

describe("nor mark: each outcome in the CLI's words", () => {
  const mark = (...args: string[]) => nor("mark", "--data", dir, "--by", "tester", ...args);

  it("P24: marked (0), already so (2), unknown source (2), a missing reason (2)", async () => {
    const already = await mark("oh-b-bids", "--read");
    expect(already).toMatchObject({ code: 2, stdout: "" });
    expect(already.stderr).toBe("nor: oh-b-bids is already read; nothing changed\n");

    const done = await mark("oh-b-bids", "--not-read", "--reason", "The clerk asked");
    expect(done).toEqual({
      code: 0,
      stdout: "oh-b-bids: not read (The clerk asked)\n",
      stderr: "",
    });
    const again = await mark("oh-b-bids", "--not-read", "--reason", "The clerk asked");
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^nor: oh-b-bids is already not read for that reason \(since 20\d\d-.*\); nothing changed\n$/,
    );

    const unknown = await mark("no-such-source", "--read");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown source "no-such-source"');

    const noReason = await mark("oh-b-bids", "--not-read");
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("--reason");

    expect(await mark("oh-b-bids", "--read")).toMatchObject({
      code: 0,
      stdout: "oh-b-bids: read\n",
    });
  });

  it("a store that fails is exit 1 with the store's words, not an unknown source", async () => {
    await breakTable("marks");
    const r = await mark("oh-b-bids", "--not-read", "--reason", "why");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nor: .*marks/);
    expect(r.stderr).not.toContain("unknown source");
  });
});

describe("nor flags --clear: each outcome in the CLI's words", () => {
  const clear = (id: string) => nor("flags", "--data", dir, "--clear", id, "--by", "tester");

  it("P24, P25: cleared (0), already cleared (2), unknown flag (2)", async () => {
    expect(await clear(FLAG)).toEqual({
      code: 0,
      stdout: `cleared ${FLAG} (no-3-nights, oh-b-bids)\n`,
      stderr: "",
    });
    const again = await clear(FLAG);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(`^nor: flag "${FLAG}" was already cleared at 20.* by tester; nothing changed\\n$`),
    );
    const unknown = await clear("no-such-flag");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('nor: no flag with id "no-such-flag" (see `nor flags`)\n');
  });

  it("a store that fails is exit 1, not an unknown flag", async () => {
    await breakTable("flags");
    const r = await clear(FLAG);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nor: .*flags/);
    expect(r.stderr).not.toContain("no flag with id");
  });
});
