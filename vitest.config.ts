import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The longest files, longest first (measured on the 2-core machine, whole suite: the mean of two
 * runs on 2026-12-06, 22:06 and 22:19, 476 files; files that mostly wait, such as
 * pg-lost-commit's and lock-wait's, are as long as the busiest). The workers
 * take files from one queue, so a long file taken last keeps one worker busy while the others
 * have nothing left: started first, the long ones overlap and the many short files fill in
 * around them. A clean clone has no timings of its own (vitest keeps them under node_modules/,
 * which `npm ci` replaces) and would order by file size, which puts some long files last.
 * A file missing from the list only runs in vitest's own order, after these.
 */
const LONGEST_FIRST = [
  "test/night/crash-1.test.ts",
  "test/night/crash-2.test.ts",
  "test/night/crash-3.test.ts",
  "test/cli/lazy-load.test.ts",
  "test/store/pg-lost-commit.test.ts",
  "test/night/backfill-restart.test.ts",
  "test/sources/platforms/mutations.test.ts",
  "test/night/workers.test.ts",
  "test/web/browser.test.ts",
  "test/store/journal-contract.test.ts",
  "test/store/lock-wait.test.ts",
  "test/sources/extract/nesting.test.ts",
  "test/store/night-commit.test.ts",
  "test/cli/no-traps.test.ts",
  "test/web/console-auth.test.ts",
  "test/cli/demo-signals.test.ts",
  "test/cli/demo.test.ts",
  "test/cli/reading-leaves-schema.test.ts",
  "test/cli/night-stored-catalog.test.ts",
  "test/night/moved-permanently.test.ts",
  "test/cli/start-sighup.test.ts",
  "test/store/renamed-source.test.ts",
  "test/cli/discover.test.ts",
  "test/sources/platforms/corpus.test.ts",
  "test/cli/night-stop.test.ts",
  "test/cli/catalog-import-file-size.test.ts",
  "test/cli/shell-quoted-hints.test.ts",
  "test/cli/bundle-engine.test.ts",
  "test/night/short-night.test.ts",
  "test/sources/catalog-import.test.ts",
  "test/web/console-sites.test.ts",
  "test/store/record-instant.test.ts",
  "test/cli/night-dates.test.ts",
  "test/cli/demo-cleanup.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(relative(f.project.config.root, f.moduleId));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    // Array#sort is stable: files off the list keep vitest's order among themselves.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-build.ts", "test/global-postgres.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores here, and two workers more: many files spend much of their time waiting (on
    // a `nor` child process, PostgreSQL, chromium, a loopback site's pace, P15's waits after a
    // cut send), and the extra workers use those cores meanwhile. Measured on the 2-core machine
    // (2026-12-06, whole suite, the crash test's waits short in each run): 3 workers 142 s and
    // 145 s, 4 workers 129 s and 128 s; a fifth gained nothing (133 s against 131 s for four).
    maxWorkers: 4,
    // Files run one after another in each worker's process, sharing its module cache: the
    // whole src/ tree is transformed and imported once per worker, not once per file (about
    // half of the suite's CPU). They can share a process because none mocks a module, fakes
    // timers or leaves the environment changed (runMain in test/cli/cli-capture.ts restores
    // it); each makes its own stores, temp directories and loopback servers on port 0, and
    // PostgreSQL tests each use their own schema (test/store/stores.ts) in the run's own
    // database (test/global-postgres.ts).
    isolate: false,
    sequence: { sequencer: LongestFirst },
  },
});
