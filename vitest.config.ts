import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The longest files, longest first (measured on the 2-core machine, whole suite: a fresh-clone
 * run on 2026-12-07 at 06:43, 507 files; then backfill-restart.test.ts no longer waits P15's
 * 25 s and pg-lost-commit.test.ts no longer migrates a schema per test, so the one is off the
 * list and the other where its measured saving puts it; files that mostly wait, such as the
 * crash test's, pg-lost-commit's and lock-wait's, are as long as the busiest). The workers
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
  "test/sources/platforms/mutations.test.ts",
  "test/store/journal-contract.test.ts",
  "test/web/browser.test.ts",
  "test/cli/lazy-load.test.ts",
  "test/night/overflow-carry.test.ts",
  "test/night/workers.test.ts",
  "test/store/lock-wait.test.ts",
  "test/web/console-a11y.test.ts",
  "test/cli/no-traps.test.ts",
  "test/review/tester-owner.test.ts",
  "test/store/pg-lost-commit.test.ts",
  "test/night/moved-permanently.test.ts",
  "test/cli/demo.test.ts",
  "test/cli/night-stored-catalog.test.ts",
  "test/store/night-commit.test.ts",
  "test/night/way-identity.test.ts",
  "test/cli/demo-signals.test.ts",
  "test/sources/extract/nesting.test.ts",
  "test/cli/night-stop.test.ts",
  "test/cli/shell-quoted-hints.test.ts",
  "test/cli/bundle-engine.test.ts",
  "test/web/reads-contract.test.ts",
  "test/night/workers-die.test.ts",
  "test/sources/platforms/corpus.test.ts",
  "test/cli/start.test.ts",
  "test/sources/extract/download-xlsx.test.ts",
  "test/archive/crash.test.ts",
  "test/net/no-stray-connection.test.ts",
  "test/web/console-log.test.ts",
  "test/cli/discover.test.ts",
  "test/cli/data-dir-errors.test.ts",
];

/**
 * Every process the suite starts (the workers, each `nor` and build script a test spawns) starts
 * without NODE_EXTRA_CA_CERTS: node reads and parses the file it names as it starts, whatever the
 * process does, and on this workplace's machines it names the system's bundle (144
 * certificates): about 55 ms of CPU a start (`nor --help` 0.135 s with it, 0.075 s without). No
 * test opens a connection beyond loopback, nor trusts a certificate but its own test CA (given
 * by the test, never through this variable). Deleted here, in the process that forks the workers,
 * before any is forked: they, and what they spawn, inherit the environment without it.
 */
delete process.env["NODE_EXTRA_CA_CERTS"];

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
    globalSetup: ["test/global-build.ts", "test/global-postgres.ts", "test/global-tmp.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores here, and three workers more: many files spend much of their time waiting (on
    // a `nor` child process, PostgreSQL, chromium, a loopback site's pace, P15's waits after a
    // cut send), and the extra workers use those cores meanwhile. Measured on the 2-core machine
    // (2026-12-06, whole suite): 3 workers 142 s and 145 s, 4 workers 129 s and 128 s, 5 133 s.
    // Again on 2026-12-07 (560 files, quiet; docs/benchmarks.md "Who spends the suite's CPU"):
    // 4 workers 234 s (the cores idle 71 s of it), 5 workers 222 s and 216 s (idle 25 and 37 s);
    // 6 workers (551 files) 230 s, what the sixth costs in CPU taking what it fills.
    maxWorkers: 5,
    // Files run one after another in each worker's process, sharing its module cache: the
    // whole src/ tree is transformed and imported once per worker, not once per file (about
    // half of the suite's CPU). They can share a process because none mocks a module, fakes
    // timers or leaves the environment changed (runMain in test/cli/cli-capture.ts restores
    // it); each makes its own stores, temp directories and loopback servers on port 0, and
    // PostgreSQL tests each use their own schema (test/store/stores.ts) in the run's own
    // database (test/global-postgres.ts).
    isolate: false,
    // NOR_TEST_CPU_REPORT=FILE: each file's CPU, its children's and its wall time, one line each
    // (test/cpu-report.ts).
    setupFiles: process.env["NOR_TEST_CPU_REPORT"] ? ["test/cpu-report.ts"] : [],
    sequence: { sequencer: LongestFirst },
  },
});
