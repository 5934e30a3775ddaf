import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-build.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores here: keep the fleet tests from starving each other.
    maxWorkers: 2,
    // Files run one after another in each worker's process, sharing its module cache: the
    // whole src/ tree is transformed and imported once per worker, not once per file (about
    // half of the suite's CPU). They can share a process because none mocks a module, fakes
    // timers or leaves the environment changed (runMain in test/cli/cli-capture.ts restores
    // it); each makes its own stores, temp directories and loopback servers on port 0, and
    // PostgreSQL tests each use their own schema (test/store/stores.ts).
    isolate: false,
  },
});
