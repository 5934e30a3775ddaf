/**
 * A real writer for the crash test: appends records with a large incompressible body in a
 * loop and prints `ok <file> <bytes>` after each write resolved, until it is killed.
 * Usage: node --import ./ts-loader.mjs writer-child.ts DATA_DIR BODY_BYTES
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../../../src/clock.js";
import { randomIds } from "../../../src/ids.js";
import { WarcArchive } from "../../../src/store/archive/warc-archive.js";
import { openStore } from "../../../src/store/db.js";
import { exchange } from "./fixtures.js";

const [dataDir, size] = process.argv.slice(2);
const store = await openStore({ kind: "sqlite", dir: dataDir! });
const dir = join(dataDir!, "archive");
// A real process: the system clock and random record ids, as `nor night` writes.
const archive = await WarcArchive.open(dir, { db: store.db, clock: systemClock, ids: randomIds });
for (let i = 0; i < 1000; i++) {
  const body = new Uint8Array(randomBytes(Number(size)));
  await archive.write(
    exchange(`http://127.0.0.2/big/${i}.pdf`, body, { at: Date.UTC(2026, 10, 5) + i }),
  );
  const file = archive.currentFile!;
  process.stdout.write(`ok ${file} ${statSync(join(dir, file)).size}\n`);
}
