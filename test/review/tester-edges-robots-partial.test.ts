import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { html } from "../fleet/routes.js";

/**
 * Outside tester (tester-edges): P20 keeps the checker off an origin whose robots.txt came
 * "cut off mid-transfer", and P17/P18 read the whole file (at least 500 KiB). A robots.txt
 * answered 206 Partial Content (the checker sent no Range; a cache or proxy in front of the
 * site hands out a stored fragment) says in its own Content-Range that the body is only the
 * first bytes of the file: the checker parses that fragment as the whole file, and asks a path
 * the rest of the file disallows.
 */
let h: Harness;
afterEach(async () => h?.close());

const FILE = "User-agent: *\nDisallow: /private/\n";

describe("P20, P18: a robots.txt that says it is only part of the file", () => {
  it("P20, P18: a 206 robots.txt whose Content-Range covers only its first line is not taken for the whole file: the path its rest disallows is never asked", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const part = FILE.slice(0, 14); // "User-agent: *\n"
    a.route("/robots.txt", (_q, res) => {
      res
        .writeHead(206, {
          "content-type": "text/plain",
          "content-range": `bytes 0-${part.length - 1}/${FILE.length}`,
        })
        .end(part);
    });
    a.route("/private/list", html("private"));
    const out = await h
      .fetcher()
      .fetch({ url: a.url("/private/list"), purpose: "page", source: "s" });
    expect(a.hits("/private/list")).toHaveLength(0);
    expect(out.kind).not.toBe("ok");
  });
});
