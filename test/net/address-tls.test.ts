import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { parsePins } from "../../src/net/address-guard.js";
import { effectiveTimeouts } from "../../src/net/transport-undici.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

describe("address guard", () => {
  it("P3: by default a fetch to 127.0.0.1 is blocked-address and the server sees nothing", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/list", html("ok"));
    const f = h.fetcher({ transportOptions: { allowPrivateAddresses: false } });
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "blocked-address",
      address: "127.0.0.1",
    });
    // A name that resolves inward is checked on the resolved address too.
    const byName = await f.fetch({ url: `http://localhost:${s.port}/list`, purpose: "page" });
    expect(byName.kind).toBe("blocked-address");
    // A --resolve pin does not get around the guard either.
    const pinned = h.fetcher({
      transportOptions: {
        allowPrivateAddresses: false,
        resolve: [`records.example.org:${s.port}:127.0.0.1`],
      },
    });
    expect(
      (await pinned.fetch({ url: `http://records.example.org:${s.port}/list`, purpose: "page" }))
        .kind,
    ).toBe("blocked-address");
    expect(s.requests).toHaveLength(0);
  });

  it("P3: a redirect to 169.254.169.254 is blocked before any connection, even with private addresses allowed", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/go", redirect("http://169.254.169.254/latest/meta-data/"));
    const out = await h.fetcher().fetch({ url: s.url("/go"), purpose: "page" });
    expect(out).toMatchObject({ kind: "blocked-address", address: "169.254.169.254" });
    const last = h.ports.log.entries.at(-1);
    expect(last).toMatchObject({
      url: "http://169.254.169.254/robots.txt",
      status: null,
      outcome: "blocked-address",
    });
    expect(last?.failure).toMatch(/^blocked-address: .*169\.254\.169\.254/);
  });

  it("a bad --resolve pin is a configuration error naming the pin", () => {
    expect(() => parsePins(["example.org:80"])).toThrow(ConfigError);
    expect(() => parsePins(["example.org:80:not-an-ip"])).toThrow(/not-an-ip/);
    expect(parsePins(["A.example.org:8080:127.0.0.2"]).get("a.example.org:8080")).toBe("127.0.0.2");
  });

  it("P14: timeouts may be shortened for tests but never lengthened past 30 s", () => {
    expect(effectiveTimeouts({})).toMatchObject({ headersTimeout: 30_000, bodyTimeout: 30_000 });
    expect(effectiveTimeouts({ headersTimeoutMs: 120_000, bodyTimeoutMs: 45_000 })).toMatchObject({
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    expect(effectiveTimeouts({ headersTimeoutMs: 200 }).headersTimeout).toBe(200);
    expect(() => effectiveTimeouts({ bodyTimeoutMs: 0 })).toThrow(ConfigError);
  });
});

describe("TLS (P21, P22)", () => {
  it("P21, P22: a self-signed certificate is a no (tls), tried once, never without verification", async () => {
    h = await harness();
    const s = await h.fleet.server({ tls: true });
    s.route("/robots.txt", robots(""));
    s.route("/list", html("ok"));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(out).toMatchObject({ kind: "refused", evidence: { verdict: "tls" } });
    expect(s.requests).toHaveLength(0);
    expect(s.connections).toBe(1);
    // The site is closed for the night: no second handshake.
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    expect(s.connections).toBe(1);
    expect(h.ports.log.entries).toHaveLength(1);
    expect(h.ports.log.entries[0]?.failure).toMatch(/^tls: /);
  });

  it("P22: --ca-file adds a trusted CA and the same origin then works, verified", async () => {
    h = await harness();
    const s = await h.fleet.server({ tls: true });
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", html("secure list"));
    const { certFile } = await h.fleet.cert();
    const f = h.fetcher({ transportOptions: { caFile: certFile } });
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
    // Verification still checks the name: a pinned name the certificate does not carry fails.
    const g = h.fetcher({
      transportOptions: { caFile: certFile, resolve: [`records.example.org:${s.port}:${s.host}`] },
    });
    const wrongName = await g.fetch({
      url: `https://records.example.org:${s.port}/list`,
      purpose: "page",
    });
    expect(wrongName).toMatchObject({ kind: "refused", evidence: { verdict: "tls" } });
  });
});
