import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";

/**
 * A port another program holds is a condition of the moment (exit 1, which the systemd units
 * in docs/operations.md retry), not a mistake in what was typed (exit 2, never retried); the
 * message names the address and the port. The same in `nor start`, `nor serve` and `nor demo`.
 */
describe("a port in use", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-busy-port-"));
  const catalog = join(dir, "catalog.yaml");
  const data = join(dir, "data");
  const busy: Server = createServer();
  let port = "";
  beforeAll(async () => {
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-busy, name: Village of Busy, kind: village, county: Franklin }
sources:
  - { id: busy-agendas, government: village-of-busy, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    expect((await nor("catalog", "import", catalog, "--data", data)).code).toBe(0);
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    port = String((busy.address() as AddressInfo).port);
  });
  afterAll(async () => {
    await new Promise<void>((r) => busy.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const said = (p: string) =>
    `cannot serve on 127.0.0.1:${p}: the port is in use by another program (EADDRINUSE); stop it, or choose another --port (0 picks a free one)`;

  it("nor start exits 1 (a runtime failure) and names the address and port", async () => {
    const r = await nor("start", "--catalog", catalog, "--data", data, "--port", port);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(said(port));
  });

  it("nor start on a port in use makes nothing: no data directory, store or archive is left behind", async () => {
    const fresh = join(dir, "start-new", "data");
    const r = await nor("start", "--catalog", catalog, "--data", fresh, "--port", port);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(said(port));
    expect(existsSync(join(dir, "start-new"))).toBe(false);
  });

  it("nor start on a port in use leaves a data directory that was there as it was (its lock gone again)", async () => {
    const empty = join(dir, "start-empty");
    mkdirSync(empty);
    const r = await nor("start", "--catalog", catalog, "--data", empty, "--port", port);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(said(port));
    expect(readdirSync(empty)).toEqual([]);
    // A store that was there: nothing added beside it, its catalog not imported again.
    const before = readdirSync(data).sort();
    const again = await nor("start", "--catalog", catalog, "--data", data, "--port", port);
    expect(again.code, again.stderr).toBe(1);
    expect(readdirSync(data).sort()).toEqual(before);
  });

  it("nor start on a data directory another nor start holds is refused for that (exit 2), not for the port it holds", async () => {
    const held = join(dir, "start-held");
    mkdirSync(held);
    writeFileSync(join(held, "start.lock"), `${process.pid}\n`);
    const r = await nor("start", "--catalog", catalog, "--data", held, "--port", port);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`another nor start is running on ${held} (pid ${process.pid}`);
    expect(readdirSync(held)).toEqual(["start.lock"]);
  });

  it("nor serve exits 1 (a runtime failure) and names the address and port", async () => {
    const r = await nor("serve", "--data", data, "--port", port);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(said(port));
  });

  it("nor demo exits 1 before anything is made, so the same --data can be given again", async () => {
    const r = await nor("demo", "--headless", "--port", port, "--data", join(dir, "demo"));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(said(port));
    expect(r.stdout).not.toContain("Night 1 of 2");
    expect(existsSync(join(dir, "demo")) ? readdirSync(join(dir, "demo")) : []).toEqual([]);
  });

  it("an address this machine does not have is configuration (exit 2), named with its port", async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never one of this machine's addresses.
    const r = await nor("serve", "--data", data, "--host", "192.0.2.1", "--port", "0");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      "cannot serve on 192.0.2.1:0: EADDRNOTAVAIL; check --host and --port",
    );
  });
});
