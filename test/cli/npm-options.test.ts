import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";

/**
 * `npm start --data /srv/nor-data --port 9000` and `npm run demo --headless`, as the README's
 * `npm start` and `npm run demo` invite: npm reads options before `--` as settings of its own
 * (it warns, sets npm_config_data=true, npm_config_port=true, and passes "/srv/nor-data" and
 * "9000" on as bare arguments), so nor start ran with ./data and port 8080, or failed with
 * commander's "too many arguments", and `npm run demo --headless` ran the full demo, serving
 * until Ctrl-C, where CI wanted it checked and ended. The environment below is npm 11's for
 * those command lines (npm_lifecycle_* as `npm start` / `npm run demo` set them).
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-npm-options-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const npmStart = {
  npm_lifecycle_event: "start",
  npm_lifecycle_script: "exec node bin/nor.js start",
  npm_command: "start",
  npm_config_user_agent: "npm/11.19.1 node/v20.20.2 linux x64 workspaces/false",
};
const npmDemo = {
  npm_lifecycle_event: "demo",
  npm_lifecycle_script: "exec node bin/nor.js demo",
  npm_command: "run",
  npm_config_user_agent: "npm/11.19.1 node/v20.20.2 linux x64 workspaces/false",
};

describe("options npm kept for itself (npm start --data DIR, npm run demo --headless)", () => {
  it("npm start --data=DIR --port 9000: exit 2 naming both and the command line with --, nothing made", async () => {
    const data = join(tmp(), "nor-data");
    // `--port 9000` leaves "9000" as a bare argument; `--data=DIR` leaves npm the value.
    const r = await runMain(["start", "9000"], {
      env: { ...npmStart, npm_config_data: data, npm_config_port: "true" },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "nor start: npm took --data and --port for settings of its own (npm reads the options before `--` as its own), so nor start never saw them; give them after --: " +
        `npm start -- --data ${data} --port <n>\n`,
    );
    expect(existsSync(data)).toBe(false);
  });

  it("npm run demo --headless --port 0: exit 2 naming both, `npm run demo -- --port <n> --headless`", async () => {
    const r = await runMain(["demo", "0"], {
      env: { ...npmDemo, npm_config_headless: "true", npm_config_port: "true" },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "nor demo: npm took --port and --headless for settings of its own (npm reads the options before `--` as its own), so nor demo never saw them; give them after --: " +
        "npm run demo -- --port <n> --headless\n",
    );
  });

  it("the same variables outside nor's own npm script, and npm's own user-agent, are not taken for options", async () => {
    // A data "directory" that is a file: the command's own first refusal, proving it ran on.
    const file = join(tmp(), "a-file");
    writeFileSync(file, "x");
    const elsewhere = await runMain(["start", "--data", file, "--port", "0"], {
      env: {
        ...npmStart,
        npm_lifecycle_event: "test",
        npm_lifecycle_script: "vitest run",
        npm_config_port: "true",
      },
    });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe(`nor: the store location ${file} is not a directory\n`);

    const agentOnly = await runMain(["start", "--data", file, "--port", "0"], { env: npmStart });
    expect(agentOnly.code).toBe(2);
    expect(agentOnly.stderr).toBe(`nor: the store location ${file} is not a directory\n`);
  });
});
