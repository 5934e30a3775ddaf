/**
 * A preset's page as a visitor sees it: parsed, with what a browser never shows as text taken
 * out (`<script>`, `<style>`, `<template>`), so a cell's text is its title or its date and
 * not, say, an inline `document.write(…)` beside it. Presets read lists by what the page says
 * about itself (P6); nothing they read lives in a script.
 */
import type { CheerioAPI } from "cheerio";
import { load } from "../../extract/cheerio-load.js";
import { descendantsWhere } from "../../extract/descendants.js";

/** What `$("script, style, template")` matches in a page parsed as HTML. */
function hidden(el: { name: string }): boolean {
  return el.name === "script" || el.name === "style" || el.name === "template";
}

export function visiblePage(text: string): CheerioAPI {
  const $ = load(text);
  // The same elements as `$("script, style, template")`, in the same (document) order, by one
  // walk of the tree with a name test: the selector engine took a tenth of the presets' CPU on
  // the fixture corpus, more than any of their own lookups.
  $(descendantsWhere($.root().toArray(), hidden)).remove();
  return $;
}
