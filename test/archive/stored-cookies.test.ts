/**
 * P5, P22: an answer stored earlier tonight and taken from the archive instead of asked again
 * (a resumed night, P8) gives back the cookies it set, each apart (a cookie's Expires date
 * holds a comma), so the source's jar gets them as if the answer had come again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

const URL_A = "http://127.0.0.2/list";
const T0 = Date.UTC(2026, 10, 5, 8, 0, 0);
const stores: TempStore[] = [];
afterEach(async () => {
  for (const t of stores.splice(0)) await t.cleanup();
});

describe("a stored answer's cookies", () => {
  it("P5, P22: the Set-Cookie headers of an answer stored tonight come back with it, one a cookie", async () => {
    const t = await tempStore();
    stores.push(t);
    const archive = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const copies = new ArchiveValidators(t.store.db, t.archiveDir);
    const cookies = ["sid=abc; Path=/", "lang=en; Expires=Wed, 09 Jun 2027 10:18:14 GMT"];
    await archive.write(
      exchange(URL_A, "<ul><li>one</li></ul>", {
        at: T0,
        headers: { "set-cookie": cookies.join("\n") },
      }),
    );
    const copy = await copies.storedSince(URL_A, T0, Number.MAX_SAFE_INTEGER);
    expect(copy?.setCookies).toEqual(cookies);
    await archive.write(exchange("http://127.0.0.2/plain", "<p>x</p>", { at: T0 }));
    expect(
      (await copies.storedSince("http://127.0.0.2/plain", T0, Number.MAX_SAFE_INTEGER))?.setCookies,
    ).toBeUndefined();
    await archive.close();
    await copies.close();
  });
});
