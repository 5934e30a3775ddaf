/** Loads the hand-written refusal test pages of test/fixtures/refusal (see its PROVENANCE.md). */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RefusalInput } from "../../src/policy/refusal.js";

const DIR = fileURLToPath(new URL("../fixtures/refusal/", import.meta.url));
export const DEFAULT_URL = "https://www.example-county.gov/bids/";

interface Sidecar {
  status: number;
  headers: Record<string, string>;
  url?: string;
}

export function loadFixture(name: string): RefusalInput {
  const meta = JSON.parse(readFileSync(`${DIR}${name}.json`, "utf8")) as Sidecar;
  const bodyPath = [".html", ".txt"].map((ext) => `${DIR}${name}${ext}`).find((p) => existsSync(p));
  if (!bodyPath) throw new Error(`fixture ${name}: no .html or .txt body in ${DIR}`);
  return {
    status: meta.status,
    headers: meta.headers,
    body: new Uint8Array(readFileSync(bodyPath)),
    url: meta.url ?? DEFAULT_URL,
  };
}
