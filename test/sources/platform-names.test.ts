import { describe, expect, it } from "vitest";
import { getPlatform, platformNames } from "../../src/sources/platforms/index.js";
import { presetAccess, presetNames } from "../../src/sources/platforms/names.js";

describe("the presets' names, as the catalog checks them without loading the presets", () => {
  it("name every preset, in the same order, each with its own access", () => {
    expect(presetNames).toEqual(platformNames);
    for (const name of platformNames) expect(presetAccess(name)).toBe(getPlatform(name)?.access);
  });

  it("match as getPlatform does (case and spaces) and know no other name", () => {
    expect(presetAccess(" BoardDocs ")).toBe(getPlatform(" BoardDocs ")?.access);
    expect(presetAccess("no-such-vendor")).toBeUndefined();
    expect(presetAccess("constructor")).toBeUndefined();
    expect(getPlatform("constructor")).toBeUndefined();
  });
});
