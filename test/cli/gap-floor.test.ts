import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * P10: `--gap-ms` below the 2 s floor is honoured only towards loopback addresses with
 * --allow-private-addresses (tests and demos). Without that option the floor would hold for
 * every site whatever was given, so a shorter gap is refused (exit 2) before anything is
 * made, opened or sent, rather than taken in silence.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-gap-floor-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function catalogIn(d: string): string {
  // Nothing is sent: 127.0.0.1 is refused without --allow-private-addresses.
  return writeVillageCatalog(join(d, "catalog.yaml"), "Test", {
    "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
  });
}

const refusal = (gap: number) =>
  `nor: --gap-ms ${gap}: the gap between requests to one site may be shortened below the 2 s floor (P10) only for loopback tests, together with --allow-private-addresses; otherwise the floor of 2000 ms holds for every site\n`;

describe("--gap-ms below the floor without --allow-private-addresses", () => {
  it("nor night and nor discover refuse it (exit 2), naming the floor, and make nothing", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    for (const gap of [100, 0, 1999]) {
      const night = await nor(
        ...["night", "--catalog", catalog, "--data", data, "--deadline", "1m"],
        ...["--gap-ms", String(gap)],
      );
      expect(night.code, night.stderr).toBe(2);
      expect(night.stderr).toBe(refusal(gap));
      expect(night.stdout).toBe("");
    }
    const discover = await nor(
      ...["discover", "http://127.0.0.1:9/", "--data", data, "--gap-ms", "100"],
    );
    expect(discover.code, discover.stderr).toBe(2);
    expect(discover.stderr).toBe(refusal(100));
    expect(existsSync(data)).toBe(false);
  });

  it("nor start refuses it (exit 2) before it serves or makes anything", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    // A data directory start could not use either: the gap is said first, as an option is.
    const file = join(d, "afile");
    writeFileSync(file, "x\n");
    const r = await nor(
      ...["start", "--catalog", catalog, "--data", join(file, "data"), "--port", "0"],
      ...["--gap-ms", "100"],
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(refusal(100));
    expect(readdirSync(d).sort()).toEqual(["afile", "catalog.yaml"]);
  });

  it("a gap at or above the floor needs no --allow-private-addresses", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    const r = await nor(
      ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
      ...["--deadline", "1m", "--gap-ms", "2000"],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("--gap-ms");
  });
});
