import { readdirSync, readFileSync } from "node:fs";

const fixtures = new URL("../../fixtures/platforms/", import.meta.url);

/** Every XML fixture under test/fixtures/platforms, by `platform/file` name, as bytes. */
export function platformXmlFixtures(): { name: string; body: Buffer }[] {
  const out: { name: string; body: Buffer }[] = [];
  for (const dir of readdirSync(fixtures)) {
    let names: string[];
    try {
      names = readdirSync(new URL(`${dir}/`, fixtures));
    } catch {
      continue;
    }
    for (const name of names)
      if (name.endsWith(".xml"))
        out.push({
          name: `${dir}/${name}`,
          body: readFileSync(new URL(`${dir}/${name}`, fixtures)),
        });
  }
  return out;
}
