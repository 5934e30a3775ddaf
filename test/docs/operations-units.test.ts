import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * docs/operations.md's systemd units, read as an operator copies them onto a new machine: each
 * ExecStart runs a command the CLI has, with options it has, and the user each unit runs as has
 * a data directory it may write, made by the setup the page gives before the units. Without
 * that step `nor start` (User=nor) cannot make /srv/nor-data under root's /srv and stops (exit
 * 2, not restarted), and nor-serve.service started beside the timer finds no store (exit 2,
 * not restarted) until a night has made one.
 */
const DOC = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");

interface Unit {
  name: string;
  keys: Map<string, string>;
}

function units(): Unit[] {
  return [...DOC.matchAll(/```ini\n# \/etc\/systemd\/system\/(\S+)\n([\s\S]*?)```/g)].map((m) => {
    const keys = new Map<string, string>();
    for (const line of (m[2] as string).split("\n")) {
      const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
      if (kv) keys.set(kv[1] as string, kv[2] as string);
    }
    return { name: m[1] as string, keys };
  });
}

const services = units().filter((u) => u.name.endsWith(".service"));

/** The `sh` blocks of the page, as one text each. */
const shBlocks = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

function longOptions(cmd: Command): string[] {
  return cmd.options.map((o) => o.long ?? "").filter((l) => l !== "");
}

describe("docs/operations.md: the systemd units as written", () => {
  it("gives nor.service, nor-night.timer, nor-night.service and nor-serve.service", () => {
    expect(units().map((u) => u.name)).toEqual([
      "nor.service",
      "nor-night.timer",
      "nor-night.service",
      "nor-serve.service",
    ]);
  });

  it("each ExecStart runs bin/nor.js in the checkout with a command and options the CLI has", async () => {
    for (const u of services) {
      const exec = u.keys.get("ExecStart") ?? "";
      const words = exec.split(/\s+/);
      const at = words.indexOf("bin/nor.js");
      expect(at, `${u.name}: ${exec}`).toBeGreaterThan(0);
      expect(existsSync(join(ROOT, "bin", "nor.js"))).toBe(true);
      const name = words[at + 1] as string;
      const program = await buildProgram(["node", "nor", name]);
      const cmd = program.commands.find((c) => c.name() === name);
      expect(cmd, `${u.name}: no command ${name}`).toBeDefined();
      const known = longOptions(cmd as Command);
      for (const w of words.slice(at + 2).filter((x) => x.startsWith("--")))
        expect(known, `${u.name}: ${name} has no ${w}`).toContain(w);
    }
  });

  it("the setup before the units makes each unit's --data directory, owned by its User, and a store for nor-serve before it starts", () => {
    const setup = shBlocks.find((b) => /\binstall -d\b/.test(b));
    expect(setup, "no setup block (`install -d -o USER …`) before the units").toBeDefined();
    const text = setup as string;
    for (const u of services) {
      const user = u.keys.get("User") ?? "";
      const data = /--data (\S+)/.exec(u.keys.get("ExecStart") ?? "")?.[1] ?? "";
      expect(user, u.name).not.toBe("");
      expect(data, u.name).not.toBe("");
      expect(text, `${u.name}: useradd ${user}`).toMatch(
        new RegExp(`useradd\\b.*\\b${user}$`, "m"),
      );
      expect(text, `${u.name}: ${data} owned by ${user}`).toContain(
        `install -d -o ${user} -g ${user} ${data}`,
      );
    }
    // The timer's way: nor-serve.service has a store to serve before the first night, made as
    // the units' user (a store root made is one nor may not write: exit 2).
    const serve = services.find((u) => u.name === "nor-serve.service") as Unit;
    const user = serve.keys.get("User") as string;
    const data = /--data (\S+)/.exec(serve.keys.get("ExecStart") as string)?.[1] as string;
    expect(text).toMatch(
      new RegExp(`runuser -u ${user} -- node bin/nor\\.js catalog import \\S+ --data ${data}`),
    );
  });
});
