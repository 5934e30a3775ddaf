// What the engine takes from yaml (src/yaml.ts): the bundle holds these and what they use
// (scripts/bundle-vendor.mjs). Named one by one: yaml is CommonJS, whose names a bundler cannot
// list for `export *`.
export {
  CST,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  parseDocument,
  stringify,
  visit,
} from "yaml";
