import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { entry } from "../store/entries.js";
import { nor } from "./cli-capture.js";
import { ny } from "./log-fixture.js";

/**
 * docs/operations.md, "Answering a site owner": each line of `nor log` gives the bytes and,
 * for a refusal, its evidence (provider, reference id), so the operator can quote the id the
 * site owner's firewall vendor asks for without reaching for --jsonl.
 */
describe("nor log: bytes and a refusal's evidence in the table (P27, P21)", () => {
  let dir: string;
  const evidence = {
    provider: "cloudflare",
    verdict: "challenge" as const,
    marker: "cf-mitigated",
    reference: "8f3a2b1c9d0e7f66-EWR",
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-log-evidence-"));
    const store = await openStore({ kind: "sqlite", dir });
    const log = new SqlRequestLog(store.db);
    await log.append(
      entry({ startedAt: ny(3, 11), url: "https://example.gov/robots.txt", bytes: 87 }),
    );
    await log.append(
      entry({
        startedAt: ny(3, 12, 4),
        status: 403,
        outcome: "refused",
        bytes: 5120,
        url: "https://example.gov/bids",
        evidence,
      }),
    );
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("shows BYTES on every row and, before the URL (last, however long), the refusal's provider and reference id on its row", async () => {
    const r = await nor("log", "--data", dir, "--since", "2026-11-05");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/\s+BYTES\s+.*\s+EVIDENCE\s+URL$/);
    expect(lines[1]).toMatch(
      /200 ok\s+87\s+page\s+example\.gov\s+.*-\s+https:\/\/example\.gov\/robots\.txt$/,
    );
    expect(lines[2]).toMatch(
      /403 refused\s+5120\s+page\s+.*cloudflare challenge ref 8f3a2b1c9d0e7f66-EWR\s+https:\/\/example\.gov\/bids$/,
    );
    // The EVIDENCE column lines up under its header.
    expect(lines[2]?.indexOf("cloudflare")).toBe(lines[0]?.indexOf("EVIDENCE"));
  });

  it("--jsonl is unchanged: bytes and the evidence object as stored", async () => {
    const r = await nor("log", "--data", dir, "--since", "2026-11-05", "--jsonl");
    expect(r.code).toBe(0);
    const got = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(got[0]).toMatchObject({ bytes: 87 });
    expect(got[0]).not.toHaveProperty("evidence");
    expect(got[1]).toMatchObject({ bytes: 5120, outcome: "refused", evidence });
  });
});

describe("nor log: what a site put in a row reaches the terminal shown, never obeyed (P27)", () => {
  let dir: string;
  // An escape that sets the terminal's title, a C1 control and a mark that turns text around.
  const hostile = "ref\x1b]0;owned\x07\u009b2J\u202etxt";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-log-controls-"));
    const store = await openStore({ kind: "sqlite", dir });
    const log = new SqlRequestLog(store.db);
    await log.append(
      entry({
        startedAt: ny(3, 12, 4),
        status: 403,
        outcome: "refused",
        url: "https://example.gov/bids",
        failure: `refused: ${hostile}`,
        evidence: { provider: "cloudflare", verdict: "block", marker: "x", reference: hostile },
      }),
    );
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([[[]], [["--jsonl"]]])(
    "writes no control a terminal would obey (%s), each escaped as \\uXXXX",
    async (extra) => {
      const r = await nor("log", "--data", dir, "--since", "2026-11-05", ...extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(r.stdout).toContain("\\u001b]0;owned\\u0007");
      if (extra.length > 0) {
        // Still JSON, meaning the same text.
        const row = JSON.parse(r.stdout.trim()) as { evidence: { reference: string } };
        expect(row.evidence.reference).toBe(hostile);
      }
    },
  );
});
