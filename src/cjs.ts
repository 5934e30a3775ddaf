/**
 * CommonJS packages, loaded by Node's CommonJS loader. An `import` of a CommonJS file makes
 * Node first scan its source for the names it exports (cjs-module-lexer), then run it; `require`
 * only runs it, and gives the same module object. The scan is what costs: tldts' one 220 kB
 * file took about 50 ms of CPU to import and 10 ms to require, and the packages a night loads
 * (tldts, undici's three files, pino, commander, better-sqlite3) about 80 ms of CPU a process
 * in all (issue 13; docs/benchmarks.md, "CommonJS packages required"). Their types still come
 * from `import type`.
 */
import { createRequire } from "node:module";

export const requireCjs: NodeJS.Require = createRequire(import.meta.url);
