// Module hooks for ts-loader.mjs: resolve `./x.js` to `./x.ts` when only the .ts exists, and
// strip types from .ts files on load.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { transformSync } from "rolldown/utils";

export async function resolve(specifier, context, next) {
  if (specifier.endsWith(".js") && /^(\.|\/|file:)/.test(specifier)) {
    const tsUrl = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
    if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(tsUrl)) {
      return { url: tsUrl.href, shortCircuit: true, format: "module" };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.startsWith("file:") && url.endsWith(".ts")) {
    const file = fileURLToPath(url);
    const { readFileSync } = await import("node:fs");
    const out = transformSync(file, readFileSync(file, "utf8"), { lang: "ts", sourcemap: false });
    if (out.errors?.length) throw new Error(`${file}: ${out.errors.map((e) => e.message).join("; ")}`);
    return { format: "module", source: out.code, shortCircuit: true };
  }
  return next(url, context);
}
