import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNorAsync } from "../cli/run-nor.js";
import { startFleet } from "../fleet/fleet.js";
import { writeCatalog } from "../night/cli-night.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { citiesToVendor, vendorFeeds } from "./vendor-cities.js";

/**
 * tdurable (outside tester): the end-to-end form of
 * tdurable-robots-two-machines-postgres.test.ts. Two `nor night` processes on one PostgreSQL,
 * each with its own --data (two machines, as docs/operations.md allows), run one night of four
 * governments whose feeds all redirect to one vendor's host. Their lanes are shared between
 * the two; both reach the vendor at the night's start. The vendor's log: robots.txt asked by
 * both machines (once each), where P16 and P11 promise once a day.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

describe.skipIf(factory === undefined)(
  "tdurable: two machines' nights, one vendor (PostgreSQL)",
  () => {
    // Was a DEFECT: see tdurable-robots-two-machines-postgres.test.ts (src/net/steps/site-gate.ts
    // case "answered" → unreplayable → asked again). Seen before the mend: GET /robots.txt
    // twice, one from each process (two runs out of two). The same test with one --data for
    // both processes passed (robots.txt once): it is the data directory per machine that
    // docs/operations.md allows. Mended: the robots.txt body is replayed from the journal.
    it("P16, P11: two nor night processes with a data directory each read the vendor's robots.txt once between them", async () => {
      const fleet = await startFleet({ now: () => Date.now() });
      const root = mkdtempSync(join(tmpdir(), "nor-tdurable-2m-"));
      try {
        const loc = await (factory as NonNullable<typeof factory>).fresh();
        if (loc.kind !== "postgres") throw new Error("expected PostgreSQL");
        const vendor = await fleet.server();
        vendor.route("/robots.txt", (_q, res) => {
          setTimeout(
            () =>
              void res
                .writeHead(200, { "content-type": "text/plain" })
                .end("User-agent: *\nAllow: /\n"),
            1500,
          );
        });
        vendorFeeds(vendor, 4);
        const sources = await citiesToVendor(fleet, vendor, 4);
        const catalog = writeCatalog(root, sources);
        const night = (data: string) =>
          runNorAsync(
            [
              ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
              ...["--concurrency", "2", "--allow-private-addresses", "--gap-ms", "50"],
            ],
            { env: { NOR_DATABASE_URL: loc.url }, timeoutMs: 90_000 },
          );
        const [a, b] = await Promise.all([night(join(root, "a")), night(join(root, "b"))]);
        expect(a.code, a.stderr).toBe(0);
        expect(b.code, b.stderr).toBe(0);
        expect(vendor.hits("/robots.txt")).toHaveLength(1);
      } finally {
        await fleet.close();
        rmSync(root, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
