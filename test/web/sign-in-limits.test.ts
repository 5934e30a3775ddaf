import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { headerAddress } from "../../src/web/console/auth.js";
import { limitKey } from "../../src/web/console/rate-limit.js";
import { MAX_BODY_BYTES } from "../../src/web/manners.js";
import { consoleFixture, PASSWORD } from "./console-support.js";

/**
 * The console under attack: a burst of sign-in guesses gets at most 5 password checks per
 * address per 15 minutes (counted before the slow hash), and a huge body is refused before it
 * is read, on a real server on loopback.
 */
let fx: Awaited<ReturnType<typeof consoleFixture>>;
beforeAll(async () => {
  fx = await consoleFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe("sign-in under a burst of guesses", () => {
  it("300 guesses sent at once get at most 5 password checks; the right one, sent last, does not sign in", async () => {
    const guesses = Array.from({ length: 300 }, (_v, i) =>
      i === 299 ? PASSWORD : `wrong guess ${i}`,
    );
    const answers = await Promise.all(
      guesses.map((password) =>
        fx.app.request("/console/sign-in", {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            origin: "http://localhost",
          },
          body: new URLSearchParams({ password }).toString(),
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    // 401 means the password was checked and wrong; 429 means it was never looked at.
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBe(300 - checked);
    expect(statuses).not.toContain(303);
    expect(answers.every((r) => r.headers.getSetCookie().length === 0)).toBe(true);
    const last = answers[299];
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    // 15 minutes later the address may try again, and the right password works.
    await fx.clock.advance(15 * 60 * 1000 + 1);
    expect((await fx.browser().signIn()).status).toBe(303);
  });
});

describe("sign-in guesses that name a new address each time", () => {
  /** 300 wrong guesses at once, each with its own header value; how many were checked (401). */
  async function burst(header: (i: number) => string): Promise<Record<number, number>> {
    // The app as `nor serve --client-address-header X-Forwarded-For` builds it.
    const app = createApp({
      db: fx.store.db,
      now: () => fx.clock.now(),
      console: { password: PASSWORD, clientAddress: headerAddress("X-Forwarded-For") },
    });
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_v, i) =>
        Promise.resolve(
          app.request("/console/sign-in", {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin: "http://localhost",
              "x-forwarded-for": header(i),
            },
            body: new URLSearchParams({ password: `wrong guess ${i}` }).toString(),
          }),
        ).then((r) => r.status),
      ),
    );
    const count: Record<number, number> = {};
    for (const st of statuses) count[st] = (count[st] ?? 0) + 1;
    return count;
  }

  it("behind a proxy that appends to X-Forwarded-For, the address it wrote is counted, not the ones the client sent: at most 5 checks", async () => {
    // The client writes a new X-Forwarded-For each time; the proxy appends what it saw.
    const count = await burst((i) => `10.9.${i >> 8}.${i & 255}, 198.51.100.7`);
    expect(count[401]).toBeGreaterThan(0);
    expect(count[401]).toBeLessThanOrEqual(5);
    expect(count[429]).toBe(300 - (count[401] ?? 0));
  });

  it("an IPv6 client is counted by its /64 (one subscriber's block), so 300 of its addresses get at most 5 checks", async () => {
    const count = await burst((i) => `2001:db8:77:1:${i.toString(16)}::1`);
    expect(count[401]).toBeGreaterThan(0);
    expect(count[401]).toBeLessThanOrEqual(5);
    expect(count[429]).toBe(300 - (count[401] ?? 0));
  });

  it("what an address is counted by", () => {
    expect(limitKey("203.0.113.9")).toBe("203.0.113.9");
    expect(limitKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(limitKey("2001:DB8:0:1:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:0:1::/64");
    expect(limitKey("[2001:db8::1]")).toBe("2001:db8:0:0::/64");
    expect(limitKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(limitKey("::1")).toBe("0:0:0:0::/64");
    expect(limitKey("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
    expect(limitKey("unknown")).toBe("unknown");
    expect(headerAddress("X-Real-IP")).toBeTypeOf("function");
  });
});

describe("request bodies are capped before they are read", () => {
  let base: { port: number; close: () => Promise<void> };
  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      const server = serve(
        { fetch: fx.app.fetch, hostname: "127.0.0.1", port: 0 },
        (info: AddressInfo) => {
          base = {
            port: info.port,
            close: () =>
              new Promise((r) => {
                if ("closeAllConnections" in server) server.closeAllConnections();
                server.close(() => r());
              }),
          };
          resolve();
        },
      );
    });
  });
  afterAll(async () => {
    await base?.close();
  });

  /** Sends the head and `sent` bytes of body, then waits for the answer (bounded: 10 s). */
  function raw(head: string, body: Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      const sock = connect(base.port, "127.0.0.1");
      let got = "";
      const timer = setTimeout(() => {
        sock.destroy();
        reject(new Error(`no answer in 10 s; got: ${got}`));
      }, 10_000);
      sock.on("data", (d) => {
        got += d.toString("latin1");
        if (/\r\n\r\n/.test(got)) {
          clearTimeout(timer);
          sock.destroy();
          resolve(got);
        }
      });
      sock.on("error", (e) => {
        clearTimeout(timer);
        if (got) resolve(got);
        else reject(e);
      });
      sock.write(head);
      sock.write(body);
    });
  }

  it("a sign-in declaring a 100 MB body is answered 413 after 64 KiB were sent: the rest is never waited for", async () => {
    const head =
      "POST /console/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n" +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`;
    const answer = await raw(head, Buffer.alloc(64 * 1024, "a"));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain("connection: close");
  });

  it(`a chunked body is cut off once it passes ${MAX_BODY_BYTES} bytes (413), never buffered whole`, async () => {
    const head =
      "POST /console/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n" +
      "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n";
    const chunk = Buffer.alloc(MAX_BODY_BYTES + 1024, "b");
    const body = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from("\r\n"),
    ]);
    const answer = await raw(head, body);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("a small form still goes through (the cap is not vacuous)", async () => {
    const form = "password=short";
    const head =
      "POST /console/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n" +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n`;
    const answer = await raw(head, Buffer.from(form));
    expect(answer).toMatch(/^HTTP\/1\.1 (401|429) /);
  });
});
