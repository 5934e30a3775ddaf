/**
 * yaml's runtime values, from one place. `npm run build` bundles them into one file
 * (dist/vendor/yaml.js, scripts/bundle-vendor.mjs): loading it costs about 13 ms of CPU, where
 * the package's 60-odd CommonJS files cost about 35 ms at every start of a command that reads a
 * catalog (docs/benchmarks.md, "How fast a command starts"). Without that file, the package
 * itself (vendored.ts), and so without each of the names below (a bundle of another build).
 * Every other file imports yaml's types from "yaml" and its values from here.
 */
import type * as Y from "yaml";
import { vendored } from "./vendored.js";

const yaml = await vendored<typeof Y>(
  new URL("./vendor/yaml.js", import.meta.url),
  () => import("yaml"),
  [
    "CST",
    "isAlias",
    "isMap",
    "isPair",
    "isScalar",
    "isSeq",
    "LineCounter",
    "Parser",
    "parseDocument",
    "stringify",
    "visit",
  ],
);

export const CST: typeof Y.CST = yaml.CST;
export const isAlias: typeof Y.isAlias = yaml.isAlias;
export const isMap: typeof Y.isMap = yaml.isMap;
export const isPair: typeof Y.isPair = yaml.isPair;
export const isScalar: typeof Y.isScalar = yaml.isScalar;
export const isSeq: typeof Y.isSeq = yaml.isSeq;
export const LineCounter: typeof Y.LineCounter = yaml.LineCounter;
export type LineCounter = Y.LineCounter;
export const Parser: typeof Y.Parser = yaml.Parser;
export type Parser = Y.Parser;
export const parseDocument: typeof Y.parseDocument = yaml.parseDocument;
export const stringify: typeof Y.stringify = yaml.stringify;
export const visit: typeof Y.visit = yaml.visit;
