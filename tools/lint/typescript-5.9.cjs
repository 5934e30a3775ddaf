// Preloaded (`node -r`) before eslint: every `require("typescript")` gets this workspace's
// TypeScript 5.9, which has the compiler API typescript-eslint needs. Without it, packages
// npm hoisted to the root (ts-api-utils) would load the project's TypeScript 7, which has none.
const Module = require("node:module");

const typescript = require.resolve("typescript", { paths: [__dirname] });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === "typescript" ? typescript : request, ...rest);
};
