/**
 * Extraction over the whole real fixture corpus (test/fixtures/platforms): MB/s and records/s
 * of the platform presets, against a bare cheerio parse of the same files measured in the
 * same run (the ratio is what to read; the machine is shared and noisy).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as cheerio from "cheerio";
import { getPlatform } from "../src/sources/platforms/index.js";

const ROOT = join(import.meta.dirname, "..", "..", "test", "fixtures", "platforms");
/** Fixture folders named differently from their preset. */
const PRESET_OF: Record<string, string> = { "icompass-diligent": "icompass" };
const ROUNDS = 7;

interface Item {
  preset: string;
  file: string;
  body: Uint8Array;
  text: string;
}

function corpus(): Item[] {
  const out: Item[] = [];
  for (const dir of readdirSync(ROOT).sort()) {
    const path = join(ROOT, dir);
    if (!statSync(path).isDirectory()) continue;
    const preset = PRESET_OF[dir] ?? dir;
    if (!getPlatform(preset)) continue; // accela, tyler, ohio-*: no preset (recipes)
    for (const file of readdirSync(path).sort()) {
      if (file === "PROVENANCE.md") continue;
      const body = new Uint8Array(readFileSync(join(path, file)));
      out.push({ preset, file: `${dir}/${file}`, body, text: Buffer.from(body).toString("utf8") });
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

export async function run(): Promise<string> {
  const items = corpus();
  const bytes = items.reduce((n, i) => n + i.body.length, 0);
  let records = 0;
  const extractMs: number[] = [];
  const parseMs: number[] = [];
  const url = "https://records.example.gov/list";
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so neither side always runs on a warm heap.
    const a = () => {
      let n = 0;
      for (const i of items) n += getPlatform(i.preset)!.extract(i.body, url).records.length;
      records = n;
    };
    const b = () => {
      for (const i of items) cheerio.load(i.text);
    };
    if (round % 2 === 0) {
      extractMs.push(time(a));
      parseMs.push(time(b));
    } else {
      parseMs.push(time(b));
      extractMs.push(time(a));
    }
  }
  const ex = median(extractMs);
  const pa = median(parseMs);
  const mb = bytes / 1e6;
  return [
    "## Extraction",
    "",
    `\`npm run bench -- extract\` (bench/extract.ts): the ${items.length} real fixture files that have a`,
    `platform preset (${mb.toFixed(2)} MB), each preset's \`extract\` against a bare \`cheerio.load\``,
    `of the same files, median of ${ROUNDS} rounds in the same run.`,
    "",
    "| what | time | MB/s | records/s |",
    "| --- | --- | --- | --- |",
    `| bare cheerio.load (baseline) | ${pa.toFixed(0)} ms | ${(mb / (pa / 1000)).toFixed(1)} | – |`,
    `| presets: parse + records (${records} records) | ${ex.toFixed(0)} ms | ${(mb / (ex / 1000)).toFixed(1)} | ${Math.round(records / (ex / 1000))} |`,
    "",
    `Ratio presets / bare parse: **${(ex / pa).toFixed(2)}×**. JSON and XML answers are not`,
    "HTML-parsed by their presets (BoardDocs, Legistar API, CivicClerk…), which is why the ratio can",
    "be near or below 1: the baseline parses every file as HTML.",
  ].join("\n");
}
