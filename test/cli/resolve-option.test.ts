import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { ConfigError } from "../../src/errors.js";
import { parsePins } from "../../src/net/pins.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * `--resolve host:port:address` is checked whole (a host name, a port from 1 to 65535, an IP
 * address) with the options, before a command creates, imports, starts or asks anything: the
 * transport's own parser, so the two cannot disagree.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-resolve-option-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function catalogIn(dir: string): string {
  // Without --allow-private-addresses nothing would be sent to 127.0.0.1 anyway.
  return writeVillageCatalog(join(dir, "catalog.yaml"), "Pins", {
    "pins-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
  });
}

describe("parsePins", () => {
  it.each([
    ["bogus", "not three parts"],
    ["a.gov:80", "not three parts"],
    ["a.gov:80:127.0.0.1:9", '"127.0.0.1:9" is not an IP address'],
    ["a.gov:80:not-an-ip", '"not-an-ip" is not an IP address'],
    ["a.gov:80:", '"" is not an IP address'],
    ["a.gov:99999:127.0.0.1", 'the port "99999" is not a number from 1 to 65535'],
    ["a.gov:65536:127.0.0.1", 'the port "65536" is not a number from 1 to 65535'],
    ["a.gov:0:127.0.0.1", 'the port "0" is not a number from 1 to 65535'],
    ["a.gov::127.0.0.1", 'the port "" is not a number from 1 to 65535'],
    ["a.gov:+80:127.0.0.1", 'the port "+80" is not a number from 1 to 65535'],
    [":80:127.0.0.1", '"" is not a host name'],
    ["a gov:80:127.0.0.1", '"a gov" is not a host name'],
    ["a.gov/x:80:127.0.0.1", '"a.gov/x" is not a host name'],
  ])("refuses %s, naming it and why", (pin, why) => {
    expect(() => parsePins([pin])).toThrow(ConfigError);
    expect(() => parsePins([pin])).toThrow(
      `--resolve "${pin}": ${why} (expected host:port:address)`,
    );
  });

  it("reads host:port:address, an IPv6 address with or without brackets", () => {
    const pins = parsePins(["A.example.org:8080:127.0.0.2", "b.gov:443:[::1]", "c.gov:1:::1"]);
    expect([...pins]).toEqual([
      ["a.example.org:8080", "127.0.0.2"],
      ["b.gov:443", "::1"],
      ["c.gov:1", "::1"],
    ]);
    expect(parsePins(["d.gov:65535:10.0.0.1"]).get("d.gov:65535")).toBe("10.0.0.1");
  });
});

describe("--resolve is refused before anything is made", () => {
  it.each(["bogus", "a.gov:80:127.0.0.1:9", "a.gov:99999:127.0.0.1"])(
    "nor night --resolve %s: exit 2, no data directory made, no night started",
    async (pin) => {
      const d = tmp();
      const data = join(d, "data");
      const r = await nor(
        "night",
        "--catalog",
        catalogIn(d),
        "--data",
        data,
        "--resolve",
        pin,
        "--deadline",
        "1m",
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^nor: --resolve "${pin.replace(/\./g, "\\.")}": `));
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      expect(existsSync(data)).toBe(false);
    },
  );

  it("nor discover --resolve with port 99999: exit 2, no store made, nothing asked", async () => {
    const d = tmp();
    const data = join(d, "data");
    const r = await nor(
      "discover",
      "http://a.gov/",
      "--data",
      data,
      "--resolve",
      "a.gov:99999:127.0.0.1",
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'nor: --resolve "a.gov:99999:127.0.0.1": the port "99999" is not a number from 1 to 65535 (expected host:port:address)\n',
    );
    expect(existsSync(data)).toBe(false);
  });

  it("runStart refuses it before it listens (stopped at once if it ever did)", async () => {
    const d = tmp();
    const data = join(d, "data");
    const stop = new AbortController();
    let listened = false;
    const running = runStart(
      {
        catalog: [catalogIn(d)],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
        resolve: ["a.gov:80:127.0.0.1:9"],
      },
      {
        say: () => {},
        signal: stop.signal,
        onListening: () => {
          listened = true;
          stop.abort();
        },
      },
    );
    await expect(running).rejects.toThrow(
      '--resolve "a.gov:80:127.0.0.1:9": "127.0.0.1:9" is not an IP address',
    );
    expect(listened).toBe(false);
    expect(existsSync(data)).toBe(false);
  });
});
