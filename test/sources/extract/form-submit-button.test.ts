import { describe, expect, it } from "vitest";
import type { FormSpec } from "../../../src/sources/catalog/schema.js";
import { buildFormRequest } from "../../../src/sources/extract/form.js";

const PAGE = "https://city.example.gov/Search.aspx";
const NOW = Date.UTC(2026, 10, 5, 8, 0, 0);
const enc = (s: string) => new TextEncoder().encode(s);
const page = (inner: string, after = "") =>
  enc(
    `<!DOCTYPE html><html><body><form id="f" method="post" action="Search.aspx"><input type="hidden" name="__VIEWSTATE" value="abc">${inner}</form>${after}</body></html>`,
  );
const posted = (body: Uint8Array, spec: FormSpec) =>
  [...new URLSearchParams(buildFormRequest(body, PAGE, spec, NOW).body)].map(
    ([k, v]) => `${k}=${v}`,
  );

describe("P5: the button a form.submit names, pressed as a visitor's browser presses it", () => {
  it("P5: a form.submit naming an image button posts its click's name.x and name.y, as a browser does, not name=value", () => {
    const body = page(`<input type="image" name="btnGo" src="go.png" value="Go">`);
    expect(posted(body, { fields: {}, submit: "btnGo" })).toEqual([
      "__VIEWSTATE=abc",
      "btnGo.x=0",
      "btnGo.y=0",
    ]);
  });

  it("P5: a form.submit of a button the page's script adds, given with its value under form.fields, is posted with that value", () => {
    const body = page(`<input name="q" value="">`);
    expect(posted(body, { fields: { btnSearch: "Search" }, submit: "btnSearch" })).toEqual([
      "__VIEWSTATE=abc",
      "q=",
      "btnSearch=Search",
    ]);
  });

  it("P5: a form.submit naming a button outside the form tied to it by form= is pressed, its value sent", () => {
    const body = page(
      `<input name="q" value="">`,
      `<button type="submit" form="f" name="go" value="Find">Find</button>`,
    );
    expect(posted(body, { fields: {}, submit: "go" })).toEqual([
      "__VIEWSTATE=abc",
      "q=",
      "go=Find",
    ]);
  });

  it("P5: a form.submit naming a <button> without a type (a submit button) presses it, its value sent", () => {
    const body = page(`<input name="q" value=""><button name="go" value="Find">Find</button>`);
    expect(posted(body, { fields: {}, submit: "go" })).toEqual([
      "__VIEWSTATE=abc",
      "q=",
      "go=Find",
    ]);
  });

  it("P5: a form.submit naming a control that is no submit button (a text box) is refused, naming it", () => {
    const body = page(`<input name="q" value=""><input type="submit" name="go" value="Find">`);
    expect(() => posted(body, { fields: {}, submit: "q" })).toThrow(/"q"/);
    const plain = page(
      `<input name="q" value=""><button type="button" name="b" value="x">x</button>`,
    );
    expect(() => posted(plain, { fields: {}, submit: "b" })).toThrow(/"b"/);
  });
});
