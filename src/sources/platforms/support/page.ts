/**
 * A preset's page as a visitor sees it: parsed, with what a browser never shows as text taken
 * out (`<script>`, `<style>`, `<template>`), so a cell's text is its title or its date and
 * not, say, an inline `document.write(…)` beside it. Presets read lists by what the page says
 * about itself (P6); nothing they read lives in a script.
 */
import type { CheerioAPI } from "cheerio";
import { load } from "../../extract/cheerio-load.js";

export function visiblePage(text: string): CheerioAPI {
  const $ = load(text);
  $("script, style, template").remove();
  return $;
}
