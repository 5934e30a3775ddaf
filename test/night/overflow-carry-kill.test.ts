import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asked, desc, list, listSite, newTitles, titles } from "./overflow-carry-world.js";
import { nightOn, testerWorld } from "./tester-nights.js";

/** P7, P8: a night killed while it reads an overflow carried over, then resumed. */
const world = testerWorld("nor-overflow-kill-");
const REPO = join(import.meta.dirname, "..", "..");

describe("a night killed while reading an overflow carried over (P7, P8)", () => {
  it("P7, P8: killed after a carried-over page answered, before the source's commit, then resumed: nothing lost, nothing new twice, no page it archived asked again", async () => {
    let count = 10;
    let onPage: ((page: number) => void) | undefined;
    const { catalog, data } = await listSite(
      world,
      "kill-carry",
      list(() => desc(count), { sent: (page) => onPage?.(page) }),
    );
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));

    // Night 22 in its own process, killed 0.5 s after page 6 (the second carried over) answered.
    const killed = await new Promise<string | null>((resolve, reject) => {
      const p = spawn(
        process.execPath,
        [
          "bin/nor.js",
          ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-22"],
          // A gap long enough for the kill to land between page 6's answer and page 7's request.
          ...["--allow-private-addresses", "--gap-ms", "1500"],
        ],
        { cwd: REPO, stdio: ["ignore", "ignore", "ignore"] },
      );
      const bound = setTimeout(() => p.kill("SIGKILL"), 60_000);
      onPage = (page) => {
        if (page === 6) setTimeout(() => p.kill("SIGKILL"), 600);
      };
      p.on("error", reject);
      p.on("exit", (_code, signal) => {
        clearTimeout(bound);
        resolve(signal);
      });
    });
    onPage = undefined;
    expect(killed).toBe("SIGKILL");
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=5", "/list?page=6"]);

    // Resumed: pages 5 and 6 read from tonight's copies, page 7 asked.
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    const seen = [...(await newTitles(data, "2026-11-22"))];
    for (const night of ["2026-11-23", "2026-11-24"]) {
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
    }
    expect(seen.sort()).toEqual(titles(11, 28));
    await nightOn(catalog, data, "2026-11-25");
    expect(asked(data, "2026-11-25")).toEqual(["/list"]);
  }, 120_000);
});
