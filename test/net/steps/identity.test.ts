import { describe, expect, it } from "vitest";
import type { Reply } from "../../../src/net/pipeline.js";
import { identity } from "../../../src/net/steps/identity.js";
import type { CookieJarPort } from "../../../src/net/types.js";
import { DEFAULT_USER_AGENT } from "../../../src/policy/constants.js";
import { call, fakeNext, got, ok, response } from "./fakes.js";

class Jar implements CookieJarPort {
  readonly stored: [string, string[]][] = [];
  cookieHeader = () => "sid=abc";
  store(url: string, c: string[]) {
    this.stored.push([url, c]);
  }
}

const step = identity({ userAgent: DEFAULT_USER_AGENT });

describe("step: identity (P1, P3, P22)", () => {
  it("P1, P3: exactly our User-Agent and the few headers we send, nothing else", async () => {
    const { next, calls } = fakeNext(ok("x"));
    await step(next)(call());
    expect(calls[0]?.headers).toEqual({
      "user-agent": DEFAULT_USER_AGENT,
      accept: "*/*",
      "accept-encoding": "gzip, deflate, br",
    });
  });

  it("P5, P12: a form's Content-Type, a caller's Accept and the chosen conditionals", async () => {
    const { next, calls } = fakeNext(ok("x"));
    await step(next)(
      call({
        method: "POST",
        body: "q=1",
        contentType: "application/x-www-form-urlencoded",
        accept: "application/json",
        validatorsSent: { etag: '"v1"', lastModified: "Wed, 04 Nov 2026 10:00:00 GMT" },
      }),
    );
    expect(calls[0]?.headers).toMatchObject({
      accept: "application/json",
      "content-type": "application/x-www-form-urlencoded",
      "if-none-match": '"v1"',
      "if-modified-since": "Wed, 04 Nov 2026 10:00:00 GMT",
    });
  });

  it("P3: a header value that could smuggle a line is refused", async () => {
    const { next, calls } = fakeNext(ok("x"));
    await expect(step(next)(call({ accept: "text/html\r\nAuthorization: x" }))).rejects.toThrow(
      /control characters/,
    );
    expect(calls).toHaveLength(0);
  });

  it("P22: the source's cookies go only to its own site, and every attempt's Set-Cookie from there is kept", async () => {
    const jar = new Jar();
    const setting: Reply = {
      kind: "final",
      outcome: { kind: "gone", url: "x", status: 404 },
      got: got(response(404, { setCookies: ["b=2"] })),
      earlier: [response(503, { setCookies: ["a=1"] })],
    };
    const { next, calls } = fakeNext(setting);
    await step(next)(call({ cookieJar: jar, homeSite: "example.gov" }));
    expect(calls[0]?.headers.cookie).toBe("sid=abc");
    expect(jar.stored.map(([, c]) => c)).toEqual([["a=1"], ["b=2"]]);
    // A hop to another site: no Cookie sent, none kept.
    await step(next)(
      call({ url: "https://other.example.org/land", cookieJar: jar, homeSite: "example.gov" }),
    );
    expect(calls[1]?.headers.cookie).toBeUndefined();
    expect(jar.stored).toHaveLength(2);
  });
});
