/**
 * Runs the benchmarks named on the command line (default: all) and prints their Markdown.
 * Each bench module exports `run(): Promise<string>`; ratios are against a baseline measured
 * in the same run, because the machines here are shared and noisy.
 */
const all = [
  "night",
  "loopback",
  "gaps",
  "rss",
  "log",
  "archive",
  "records",
  "extract",
  "workers",
  "web",
  "directory",
  "bounds",
  "statements",
] as const;

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length > 0 ? wanted : [...all];
  for (const name of names) {
    const mod = (await import(`./${name}.js`)) as { run?: () => Promise<string> };
    if (typeof mod.run !== "function") {
      process.stderr.write(`bench: ${name} exports no run()\n`);
      process.exitCode = 2;
      continue;
    }
    const started = process.hrtime.bigint();
    const section = await mod.run();
    const secs = Number(process.hrtime.bigint() - started) / 1e9;
    process.stdout.write(`${section.trimEnd()}\n\n_(${name}: ${secs.toFixed(1)} s)_\n\n`);
  }
}

await main();
