import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, Option } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { openStore } from "../../src/store/db.js";
import { siteRules } from "../../src/store/site-rules.js";
import { oneSourceStore, writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * An option that takes one value, given twice, is refused (exit 2, as every usage error) naming
 * the option and both values, before the command does anything: never the last one taken in
 * silence (`nor log --since A --since B` answered for B alone), as the console refuses a
 * repeated parameter (400). Options meant to repeat (variadic ones, --resolve) still collect.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-repeated-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store holding one catalog (one source, on example.gov). */
const storeDir = (): Promise<string> => oneSourceStore(tmp(), "Twice", "twice-agendas");

describe("an option that takes one value, given twice", () => {
  it("nor log --since given twice: exit 2 naming --since and both values, nothing read", async () => {
    const missing = join(tmp(), "no-store");
    const r = await nor("log", "--since", "2026-12-05", "--since", "2026-12-06", "--data", missing);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    // Said before the store is looked for: the missing store is not what is reported.
    expect(r.stderr).toBe(
      "nor log: --since is given more than once (2026-12-05, 2026-12-06); give it once\n",
    );
    expect(existsSync(missing)).toBe(false);
  });

  it("nor log --since=A --since B and three values: every value named, in order", async () => {
    const r = await nor("log", "--since=2026-12-05", "--since", "2026-12-06", "--since", "today");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "nor log: --since is given more than once (2026-12-05, 2026-12-06, today); give it once\n",
    );
  });

  it("nor night --night given twice: exit 2 naming --night and both values, no store made, no night started", async () => {
    const d = tmp();
    const data = join(d, "data");
    const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Twice", {
      "twice-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
    });
    const r = await nor(
      "night",
      "--catalog",
      catalog,
      "--data",
      data,
      "--night",
      "2026-12-05",
      "--night",
      "2026-12-06",
      "--deadline",
      "1m",
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "nor night: --night is given more than once (2026-12-05, 2026-12-06); give it once\n",
    );
    expect(existsSync(data)).toBe(false);
  });

  it("nor site --gap given twice: exit 2 naming --gap and both values, nothing recorded", async () => {
    const data = await storeDir();
    const r = await nor(
      "site",
      "example.gov",
      "--gap",
      "5s",
      "--gap",
      "10s",
      "--reason",
      "owner, e-mail",
      "--data",
      data,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("nor site: --gap is given more than once (5s, 10s); give it once\n");
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      expect(await siteRules(store.db)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("the same value given twice is refused too, and so is an option with a default (nor archive show --data)", async () => {
    const r = await nor("archive", "show", "https://example.gov/", "--data", "a", "--data", "a");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "nor archive show: --data is given more than once (a, a); give it once\n",
    );
  });

  it("several options repeated are named together; values that would blur the list are quoted", async () => {
    const r = await nor(
      "mark",
      "twice-agendas",
      "--not-read",
      "--reason",
      "asked, by phone",
      "--reason",
      "",
      "--by",
      "ops",
      "--by",
      "clerk",
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'nor mark: --reason ("asked, by phone", ""), --by (ops, clerk): each is given more than once; give each once\n',
    );
  });

  it("a control character in a value is shown escaped, never written to the terminal", async () => {
    const r = await nor("log", "--site", "a.gov\u001b[2J", "--site", "b.gov");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'nor log: --site is given more than once ("a.gov\\u{1b}[2J", b.gov); give it once\n',
    );
  });

  it("--help with an option given twice still shows the help (exit 0)", async () => {
    const r = await nor("log", "--since", "a", "--since", "b", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: nor log [options]");
  });

  it("every option of every command that keeps one value refuses a second (exit 2, named), before the command runs", async () => {
    // The arguments each command needs before its options are looked at.
    const base: Record<string, string[]> = {
      night: ["--catalog", "c.yaml"],
      mark: ["some-source"],
      site: ["example.gov"],
      extract: ["page.html"],
      discover: ["https://example.gov/"],
      "archive show": ["https://example.gov/"],
      "robots check": ["robots.txt", "https://example.gov/"],
      "backfill restart": ["some-source"],
    };
    const checked: string[] = [];
    const general = await buildProgram(["node", "nor"]);
    for (const name of general.commands.map((c) => c.name())) {
      const program = await buildProgram(["node", "nor", name]);
      for (const { path, cmd } of runnable(program)) {
        for (const o of cmd.options.filter(keepsOne)) {
          const flag = o.long as string;
          const r = await nor(...path, ...(base[path.join(" ")] ?? []), flag, "v1", flag, "v2");
          const what = `${path.join(" ")} ${flag}`;
          expect(r.code, `${what}: ${r.stderr}`).toBe(2);
          expect(r.stdout, what).toBe("");
          expect(r.stderr, what).toBe(
            `nor ${path.join(" ")}: ${flag} is given more than once (v1, v2); give it once\n`,
          );
          checked.push(what);
        }
      }
    }
    // Every command was reached (not one of them left out by the walk).
    expect(checked).toEqual(
      expect.arrayContaining([
        "start --port",
        "demo --gap-ms",
        "night --deadline",
        "night --user-agent",
        "status --data",
        "mark --night",
        "site --by",
        "flags --clear",
        "log --limit",
        "robots check --agent",
        "catalog import --data",
        "extract --timezone",
        "discover --government",
        "reparse --since",
        "archive cdx --out",
        "serve --port",
        "operator set-password --data",
      ]),
    );
  }, 60_000);
});

describe("options meant to repeat", () => {
  it("are exactly the variadic ones and --resolve, which collects its values", async () => {
    const general = await buildProgram(["node", "nor"]);
    const repeatable: string[] = [];
    for (const name of general.commands.map((c) => c.name())) {
      const program = await buildProgram(["node", "nor", name]);
      for (const { path, cmd } of runnable(program))
        for (const o of cmd.options)
          if ((o.required || o.optional) && !keepsOne(o))
            repeatable.push(`${path.join(" ")} ${o.long}`);
    }
    expect(repeatable.sort()).toEqual([
      "discover --resolve",
      "night --catalog",
      "night --resolve",
      "reparse --catalog",
      "site --clear-leave-alone",
      "site --leave-alone",
      "start --catalog",
      "start --resolve",
    ]);
  });

  it("nor site --leave-alone given twice records both paths, and --clear-leave-alone given twice clears both (exit 0)", async () => {
    const data = await storeDir();
    const set = await nor(
      "site",
      "example.gov",
      "--leave-alone",
      "/permits/",
      "--leave-alone",
      "/bids/",
      "--reason",
      "owner, e-mail",
      "--data",
      data,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe("");
    expect(set.stdout).toBe("example.gov: /permits/ left alone\nexample.gov: /bids/ left alone\n");
    const cleared = await nor(
      "site",
      "example.gov",
      "--clear-leave-alone",
      "/permits/",
      "--clear-leave-alone",
      "/bids/",
      "--data",
      data,
    );
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toBe(
      "example.gov: /permits/ may be read again\nexample.gov: /bids/ may be read again\n",
    );
  });

  it("--resolve given twice collects both pins (the second is the one checked and refused here)", async () => {
    const missing = join(tmp(), "no-store");
    const r = await nor(
      "discover",
      "http://a.gov/",
      "--data",
      missing,
      "--resolve",
      "a.gov:80:127.0.0.1",
      "--resolve",
      "b.gov:99999:127.0.0.1",
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'nor: --resolve "b.gov:99999:127.0.0.1": the port "99999" is not a number from 1 to 65535 (expected host:port:address)\n',
    );
  });

  it("--catalog given twice to nor reparse is read as two files, not refused", async () => {
    const d = tmp();
    const missing = join(d, "no-store");
    const a = writeVillageCatalog(join(d, "a.yaml"), "A", {
      "a-agendas": 'records: agendas, access: feed, url: "https://a.example.gov/a.rss"',
    });
    const b = writeVillageCatalog(join(d, "b.yaml"), "B", {
      "b-agendas": 'records: agendas, access: feed, url: "https://b.example.gov/b.rss"',
    });
    const r = await nor("reparse", "--catalog", a, "--catalog", b, "--data", missing);
    expect(r.stderr).not.toContain("more than once");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no store at ${join(missing, "nor.db")}`);
  });

  it("a flag without a value given twice (--json --json) means the same as once: accepted, same answer", async () => {
    const data = await storeDir();
    const once = await nor("status", "--json", "--data", data);
    const twice = await nor("status", "--json", "--json", "--data", data);
    expect(once.code, once.stderr).toBe(0);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stdout).toBe(once.stdout);
  });
});

/** Every command with an action under `cmd` (a leaf: `log`, `archive show`), with its path. */
function runnable(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  return cmd.commands.flatMap((sub) => {
    const at = [...path, sub.name()];
    return sub.commands.length > 0 ? runnable(sub, at) : [{ path: at, cmd: sub }];
  });
}

/** An option that keeps one value: the kind refused when given twice. */
function keepsOne(o: Option): boolean {
  return (o.required || o.optional) && !o.variadic && o.parseArg === undefined;
}
