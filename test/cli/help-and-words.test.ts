import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * What `nor` says of itself: help asked for and help given because nothing to run was named
 * (a usage error, exit 2: README "Exit codes"), each command's description the same in `nor
 * --help` as in its own help, and the way on after a refusal in the words of the command that
 * says it.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-help-words-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("help without a command to run", () => {
  it("bare `nor`, and a command with subcommands run without one, print help on stderr and exit 2 (a usage error)", async () => {
    for (const [args, usage] of [
      [[], "Usage: nor [options] [command]"],
      [["catalog"], "Usage: nor catalog [options] [command]"],
      [["archive"], "Usage: nor archive [options] [command]"],
      [["robots"], "Usage: nor robots [options] [command]"],
      [["operator"], "Usage: nor operator [options] [command]"],
      [["backfill"], "Usage: nor backfill [options] [command]"],
    ] as const) {
      const r = await nor(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout, args.join(" ")).toBe("");
      expect(r.stderr, args.join(" ")).toContain(usage);
    }
  });

  it("help asked for (--help, `help`) is still on stdout, exit 0", async () => {
    for (const [args, usage] of [
      [["--help"], "Usage: nor [options] [command]"],
      [["help"], "Usage: nor [options] [command]"],
      [["catalog", "--help"], "Usage: nor catalog [options] [command]"],
      [["catalog", "help"], "Usage: nor catalog [options] [command]"],
      [["help", "archive"], "Usage: nor archive [options] [command]"],
    ] as const) {
      const r = await nor(...args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stderr, args.join(" ")).toBe("");
      expect(r.stdout, args.join(" ")).toContain(usage);
    }
  });
});

/** Every command under `cmd`, its own and commander's help command, depth first. */
function everyCommand(cmd: Command, path: string[] = []): { path: string; cmd: Command }[] {
  const out: { path: string; cmd: Command }[] = [];
  // As the help lists them: with the help command commander adds.
  for (const sub of cmd.createHelp().visibleCommands(cmd)) {
    const at = [...path, sub.name()];
    out.push({ path: at.join(" "), cmd: sub }, ...everyCommand(sub, at));
  }
  return out;
}

describe("the commands' descriptions", () => {
  it("each command is described in `nor --help` as in its own help, and every description, the subcommands' and help's included, begins with a capital", async () => {
    const general = await buildProgram(["node", "nor"]);
    const names = general.commands.map((c) => c.name());
    expect(names).toContain("catalog");
    expect(names).toContain("robots");
    for (const name of names) {
      const listed = general.commands.find((c) => c.name() === name)?.description();
      const own = await buildProgram(["node", "nor", name]);
      const loaded = own.commands.find((c) => c.name() === name) as Command;
      expect(listed, name).toBe(loaded.description());
      for (const { path, cmd } of everyCommand(own).filter(
        (c) => c.path === name || c.path.startsWith(`${name} `) || c.path === "help",
      ))
        expect(cmd.description(), path).toMatch(/^[A-Z]/);
    }
    // What the tester saw, as a person reads it.
    expect((await nor("catalog", "--help")).stdout).toContain(
      "Check, import or count the catalog of governments and sources",
    );
    expect((await nor("robots", "--help")).stdout).toContain(
      "Say whether a robots.txt file allows a URL",
    );
  });
});

describe("the retire refusal's way on", () => {
  it("names how the command that says it is given every catalog file: its arguments for `nor catalog import`, --catalog for `nor night`", async () => {
    const d = tmp();
    const data = join(d, "data");
    const three = writeVillageCatalog(join(d, "three.yaml"), "Words", {
      "words-a": `records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"`,
      "words-b": `records: minutes, access: feed, url: "http://127.0.0.1:9/b.rss"`,
      "words-c": `records: bids, access: feed, url: "http://127.0.0.1:9/c.rss"`,
    });
    const one = writeVillageCatalog(join(d, "one.yaml"), "Words", {
      "words-a": `records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"`,
    });
    expect((await nor("catalog", "import", three, "--data", data)).code).toBe(0);

    const imported = await nor("catalog", "import", one, "--data", data);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain(
      "Give every catalog file (nor catalog import A B …), or --allow-retire if they are meant to go.",
    );
    expect(imported.stderr).not.toContain("--catalog");

    const night = await nor("night", "--catalog", one, "--data", data, "--deadline", "1m");
    expect(night.code).toBe(2);
    expect(night.stderr).toContain(
      "Give every catalog file (--catalog A B …), or --allow-retire if they are meant to go.",
    );
  });
});
