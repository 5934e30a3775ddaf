/**
 * One process opening a SQLite store (running its pending migrations) for the migrate-once
 * test: prints `opened` or the error, then closes.
 * Usage: node --import ../../archive/support/ts-loader.mjs open-child.ts DATA_DIR
 */
import { openStore } from "../../../src/store/db.js";

const [dir] = process.argv.slice(2);
try {
  const store = await openStore({ kind: "sqlite", dir: dir! });
  await store.close();
  process.stdout.write("opened\n");
} catch (err) {
  process.stdout.write(`failed: ${String(err)}\n`);
  process.exitCode = 1;
}
