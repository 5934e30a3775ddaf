import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { parsePins } from "../../src/net/address-guard.js";
import { caCertificates as readCa } from "../../src/net/ca-file.js";
import { effectiveTimeouts } from "../../src/net/transport-undici.js";
import { nor } from "../cli/cli-capture.js";
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

  it("P22: a --ca-file that holds no readable PEM certificate is refused, naming the file, before any request", async () => {
    h = await harness();
    const { certFile } = await h.fleet.cert();
    const pem = readFileSync(certFile, "utf8");
    const dir = mkdtempSync(join(tmpdir(), "nor-ca-"));
    const file = (name: string, text: string) => {
      const f = join(dir, name);
      writeFileSync(f, text);
      return f;
    };
    const der = file(
      "ca.der",
      Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64").toString("latin1"),
    );
    expect(() => readCa(der)).toThrow(ConfigError);
    expect(() => readCa(der)).toThrow(`--ca-file ${der}: no PEM certificate in it`);
    // A device that never ends, or a directory, is refused before a byte is read.
    expect(() => readCa("/dev/zero")).toThrow(
      "--ca-file /dev/zero: not a regular file (a device, FIFO or directory), not a file of certificates",
    );
    expect(() => readCa(dir)).toThrow(ConfigError);
    const cut = file("cut.pem", `${pem}${pem.slice(0, 200)}`);
    expect(() => readCa(cut)).toThrow(
      `--ca-file ${cut}: 1 of its 2 certificates has no "-----END …CERTIFICATE-----" line to match its BEGIN`,
    );
    const garbled = file(
      "garbled.pem",
      `${pem}-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n`,
    );
    expect(() => readCa(garbled)).toThrow(
      `--ca-file ${garbled}: certificate 2 of 2 cannot be read`,
    );
    expect(() => readCa(join(dir, "missing.pem"))).toThrow(
      `--ca-file ${join(dir, "missing.pem")}: ENOENT`,
    );
    // The file's own certificates, each as it is in the file.
    const two = readCa(file("two.pem", `# our CA\n${pem}\n${pem}`));
    expect(two.map((c) => c.trim())).toEqual([pem.trim(), pem.trim()]);
    // A bundle as p11-kit writes it (TRUSTED CERTIFICATE, as on RHEL and Fedora) or with the
    // X509 label: read as TLS reads them, each kept as it is.
    const trusted = pem.replace(
      /-----(BEGIN|END) CERTIFICATE-----/g,
      "-----$1 TRUSTED CERTIFICATE-----",
    );
    const x509 = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "-----$1 X509 CERTIFICATE-----");
    const mixed = file("mixed.pem", `${x509}\n${trusted}`);
    expect(readCa(mixed).map((c) => c.trim())).toEqual([x509.trim(), trusted.trim()]);
    const crossed = file("crossed.pem", trusted.replace("END TRUSTED", "END X509"));
    expect(() => readCa(crossed)).toThrow("1 of its 1 certificates has no");
    // Through the fetcher: refused when the transport is made, and no request reaches a site.
    const s = await h.fleet.server({ tls: true });
    s.route("/list", html("ok"));
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    const viaTrusted = h.fetcher({ transportOptions: { caFile: file("trusted.pem", trusted) } });
    expect((await viaTrusted.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    const before = s.requests.length;
    expect(() => h.fetcher({ transportOptions: { caFile: der } })).toThrow(ConfigError);
    expect(s.requests).toHaveLength(before);
  });

  it("P22: nor night and nor start refuse a --ca-file that is not PEM before opening the store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-ca-cli-"));
    const der = join(dir, "ca.der");
    writeFileSync(der, Buffer.from([0x30, 0x82, 0x01, 0x0a, 0x02, 0x82]));
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      'governments:\n  - { id: g, name: G, kind: village, county: Franklin }\nsources:\n  - { id: s, government: g, records: agendas, access: feed, url: "https://example.gov/f.rss" }\n',
    );
    for (const command of ["night", "start"]) {
      const data = join(dir, `data-${command}`);
      const r = await nor(command, "--catalog", catalog, "--data", data, "--ca-file", der);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--ca-file ${der}: no PEM certificate in it`);
      expect(existsSync(data)).toBe(false);
    }
  });
});

/**
 * Certificates a browser refuses that are not self-signed or expired: a leaf issued for
 * client authentication only (OpenSSL: "unsuitable certificate purpose", Node's code
 * INVALID_PURPOSE), and a leaf whose CA signed it with SHA-1 (OpenSSL 3 at its default
 * security level: "CA signature digest algorithm too weak", which Node names UNSPECIFIED),
 * each under a CA the checker is told to trust (--ca-file), so the chain itself is fine.
 */
async function misissued(): Promise<{
  ca: string;
  leaves: Record<string, { key: string; cert: string }>;
}> {
  const { execFile } = await import("node:child_process");
  const { promisify } = await import("node:util");
  const run = promisify(execFile);
  const dir = mkdtempSync(join(tmpdir(), "nor-misissued-"));
  const p = (f: string) => join(dir, f);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run("openssl", [
    ...["req", "-x509", ...ec, "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "2"],
    ...["-subj", "/CN=nor test ca", "-addext", "basicConstraints=critical,CA:TRUE"],
    ...["-addext", "keyUsage=critical,keyCertSign"],
  ]);
  await run("openssl", [
    ...["req", "-newkey", "rsa:2048", "-nodes", "-keyout", p("leaf.key"), "-out", p("leaf.csr")],
    ...["-subj", "/CN=leaf"],
  ]);
  const leaves: Record<string, { key: string; cert: string }> = {};
  const issue = async (name: string, ext: string, digest: string) => {
    writeFileSync(p(`${name}.cnf`), ext);
    await run("openssl", [
      ...["x509", "-req", `-${digest}`, "-in", p("leaf.csr"), "-CA", p("ca.pem")],
      ...["-CAkey", p("ca.key"), "-CAcreateserial", "-out", p(`${name}.pem`), "-days", "2"],
      ...["-extfile", p(`${name}.cnf`)],
    ]);
    leaves[name] = {
      key: readFileSync(p("leaf.key"), "utf8"),
      cert: readFileSync(p(`${name}.pem`), "utf8"),
    };
  };
  await issue(
    "client-only",
    "subjectAltName=IP:127.0.0.250\nextendedKeyUsage=clientAuth\n",
    "sha256",
  );
  await issue("sha1", "subjectAltName=IP:127.0.0.250\n", "sha1");
  return { ca: p("ca.pem"), leaves };
}

describe("TLS: certificates a browser refuses (P21)", () => {
  it.each(["client-only", "sha1"])(
    "P21, P22: a certificate that fails its check as %s is a no (tls): one handshake, the site closed for the night",
    async (name) => {
      h = await harness();
      const { createServer } = await import("node:https");
      const { ca, leaves } = await misissued();
      const leaf = leaves[name]!;
      let connections = 0;
      let requests = 0;
      // The server loads the weak certificate (its own security level lowered); the checker's
      // stays as Node sets it.
      const srv = createServer({ ...leaf, ciphers: "DEFAULT@SECLEVEL=0" }, (_q, res) => {
        requests++;
        res.end("User-agent: *\nAllow: /\n");
      });
      srv.on("connection", () => connections++);
      srv.on("tlsClientError", () => {});
      await new Promise<void>((r) => srv.listen(0, "127.0.0.250", r));
      try {
        const port = (srv.address() as { port: number }).port;
        const f = h.fetcher({ transportOptions: { caFile: ca } });
        const out = await f.fetch({ url: `https://127.0.0.250:${port}/list`, purpose: "page" });
        expect(out).toMatchObject({
          kind: "refused",
          evidence: { provider: "tls", verdict: "tls" },
        });
        expect(h.ports.log.entries[0]?.failure).toMatch(/^tls: /);
        const other = await f.fetch({ url: `https://127.0.0.250:${port}/other`, purpose: "page" });
        expect(other.kind).toBe("site-closed");
        expect(connections).toBe(1);
        expect(requests).toBe(0);
      } finally {
        await new Promise<void>((r) => srv.close(() => r()));
      }
    },
  );
});

describe("TLS: a no's evidence says what Node said, as a line (P21, P27)", () => {
  it("P21, P27: a certificate whose name holds terminal controls, or that names 400 hosts, not this one, is a no (tls) whose marker is one line without a control and at most 300 characters", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const { createServer } = await import("node:https");
    const run = promisify(execFile);
    const dir = mkdtempSync(join(tmpdir(), "nor-tls-marker-"));
    const p = (f: string) => join(dir, f);
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    // A CN with a C1 CSI and an ESC sequence (no subjectAltName: Node then quotes the CN), and
    // one with 400 DNS names: Node's message for the mismatch quotes either in full.
    await run("openssl", [
      ...["req", "-x509", ...ec, "-keyout", p("a.key"), "-out", p("a.pem"), "-days", "2"],
      ...["-utf8", "-subj", "/CN=records\u009b2J\u001b]0;owned\u0007"],
    ]);
    const names = Array.from({ length: 400 }, (_, i) => `DNS:host-${i}.example.net`).join(",");
    await run("openssl", [
      ...["req", "-x509", ...ec, "-keyout", p("b.key"), "-out", p("b.pem"), "-days", "2"],
      ...["-subj", "/CN=many", "-addext", `subjectAltName=${names}`],
    ]);
    writeFileSync(p("ca.pem"), readFileSync(p("a.pem"), "utf8") + readFileSync(p("b.pem"), "utf8"));
    h = await harness();
    for (const name of ["a", "b"]) {
      const srv = createServer(
        { key: readFileSync(p(`${name}.key`)), cert: readFileSync(p(`${name}.pem`)) },
        (_q, res) => res.end("User-agent: *\nAllow: /\n"),
      );
      srv.on("tlsClientError", () => {});
      await new Promise<void>((r) => srv.listen(0, "127.0.0.250", r));
      try {
        const port = (srv.address() as { port: number }).port;
        const host = `records.example-${name}.org`;
        const f = h.fetcher({
          transportOptions: { caFile: p("ca.pem"), resolve: [`${host}:${port}:127.0.0.250`] },
        });
        const out = await f.fetch({ url: `https://${host}:${port}/list`, purpose: "page" });
        expect(out).toMatchObject({ kind: "refused", evidence: { provider: "tls" } });
        if (out.kind !== "refused") return;
        const marker = out.evidence.marker ?? "";
        expect(marker, name).toMatch(/does not match certificate's altnames/);
        expect(marker, name).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        expect(marker.length, name).toBeLessThanOrEqual(300);
        expect(h.ports.log.entries.at(-1)?.evidence?.marker).toBe(marker);
      } finally {
        await new Promise<void>((r) => srv.close(() => r()));
      }
    }
  }, 60_000);
});
