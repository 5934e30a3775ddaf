import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds, type IdSource, randomIds } from "../../src/ids.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * Time and identity are injected (the Clock and the IdSource): the archive reads neither
 * the system clock nor a random generator itself, so the same answers written at the same
 * virtual times give the same files, byte for byte, gzip members included.
 */
const T0 = Date.UTC(2026, 10, 5, 6, 0, 0);

const stores: TempStore[] = [];
afterEach(async () => {
  for (const t of stores.splice(0)) await t.cleanup();
});

/** One night's answers into a fresh store's archive: files by name, their bytes. */
async function writeNight(ids: IdSource): Promise<Map<string, Buffer>> {
  const t = await tempStore();
  stores.push(t);
  const clock = new ManualClock(T0);
  // A small rotation size, so the run spans several files (each opened with a warcinfo).
  const a = await WarcArchive.open(t.archiveDir, {
    db: t.store.db,
    clock,
    ids,
    rotateBytes: 2_000,
  });
  const page = (n: number) => `<ul>${"<li>Council agenda</li>".repeat(20)}<li>${n}</li></ul>`;
  for (let i = 0; i < 6; i++) {
    await clock.advance(2_000);
    // The same body twice over: the second is a revisit record pointing at the first (P8).
    await a.write(
      exchange(`http://127.0.0.2/agendas?page=${i % 3}`, page(i % 3), {
        at: clock.now(),
        source: "s1",
        headers: { etag: `"v${i % 3}"` },
      }),
    );
  }
  await a.close();
  const files = new Map<string, Buffer>();
  for (const name of listWarcFiles(t.archiveDir))
    files.set(name, readFileSync(join(t.archiveDir, name)));
  return files;
}

describe("the archive is a function of its inputs (P8)", () => {
  it("P8: two archives written with the same ManualClock times and counted ids are equal byte for byte", async () => {
    const one = await writeNight(new CounterIds());
    const two = await writeNight(new CounterIds());
    expect(one.size).toBeGreaterThan(1);
    expect([...two.keys()]).toEqual([...one.keys()]);
    for (const [name, bytes] of one) {
      const other = two.get(name)!;
      expect(gunzipSync(other).equals(gunzipSync(bytes)), `${name} inflated`).toBe(true);
      expect(other.equals(bytes), `${name} raw`).toBe(true);
    }
    // The ids in the files are the ones handed in, in order: the store's own name (its
    // archive's isPartOf), then warcinfo, response, request, …
    const all = [...one.values()].map((b) => gunzipSync(b).toString("latin1")).join("");
    expect(all).toContain("isPartOf: urn:uuid:00000001-0000-4000-8000-000000000001");
    expect(all).toContain("WARC-Record-ID: <urn:uuid:00000002-0000-4000-8000-000000000002>");
    expect(all).toContain("WARC-Type: revisit");
  });

  it("the control: with random ids the same night gives different bytes and file names", async () => {
    const one = await writeNight(randomIds);
    const two = await writeNight(randomIds);
    // A file's name carries the start of its warcinfo id (files.ts): the same times and
    // numbers, another token.
    const shape = (names: string[]) => names.map((n) => n.replace(/-[0-9a-f]{8}\.warc\.gz$/, ""));
    expect(shape([...two.keys()])).toEqual(shape([...one.keys()]));
    const [nameOne, bytesOne] = [...one][0]!;
    const [nameTwo, bytesTwo] = [...two][0]!;
    expect(nameTwo).not.toBe(nameOne);
    expect(bytesTwo.equals(bytesOne)).toBe(false);
  });
});
