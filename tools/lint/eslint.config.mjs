// Type-aware lint: the checks biome cannot make because they need the types. Runs with
// TypeScript 5.9's compiler API (this workspace's own copy), beside the project's
// TypeScript 7, which has none. `npm run lint:types` (part of `npm test`).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import tseslint from "typescript-eslint";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default tseslint.config(
  { ignores: ["dist/**", "dist-bench/**", "node_modules/**", "test/fixtures/**", "tools/**"] },
  {
    files: ["src/**/*.ts", "src/**/*.tsx", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // A promise nobody awaits, returns or handles: its failure is lost and its work may
      // outlive the thing that started it (a night, a request, a test).
      "@typescript-eslint/no-floating-promises": "error",
      // A promise where a boolean or a void callback is expected: an `if (promise)` that is
      // always true, an async listener whose rejection nobody sees.
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
);
