import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { randomIds } from "../../ids.js";
import { type DiscoverResult, discover } from "../../night/discover.js";
import { blockedAddressWhy } from "../../policy/address.js";
import { readSite } from "../../policy/site.js";
import { urlCredentialProblem } from "../../sources/catalog/credentials.js";
import { archiveDir } from "../../store/archive/files.js";
import { ensureDataDir } from "../../store/data-dir.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { stringify } from "../../yaml.js";
import { archiveBeforeNight } from "../archive-presence.js";
import { shownStdout, stderr } from "../io.js";
import { addNetOptions, type NetCliOptions, netOptions } from "../net-options.js";
import { saying } from "../store-upgrade.js";

interface DiscoverCliOptions extends NetCliOptions {
  data?: string;
  government?: string;
  json?: boolean;
}

/** `nor discover URL`: robots.txt and the homepage only, then candidate catalog entries. */
export function register(program: Command): void {
  const cmd = program
    .command("discover")
    .description(
      "Read robots.txt and a homepage (nothing else) and print candidate catalog sources",
    )
    .argument("<homepage>", "the government's homepage URL")
    .option(
      "--data <dir>",
      "store directory, where the request log and archive are kept (default ./data); it must hold a store already (`nor catalog import` or `nor night` makes one)",
    )
    .option("--government <id>", "government id to put in the candidate entries")
    .option("--json", "print JSON instead of catalog YAML");
  addNetOptions(cmd).action(async (homepage: string, opts: DiscoverCliOptions) => {
    await run(homepage, opts);
  });
}

async function run(homepage: string, opts: DiscoverCliOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(homepage);
  } catch {
    throw new UsageError(`"${homepage}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${homepage}: only http and https URLs are read`);
  if (url.username !== "" || url.password !== "")
    throw new UsageError(
      `${homepage}: a URL with user-info is never read (credentials are never sent, P3)`,
    );
  // A key or token in the query is refused as the catalog refuses it: never sent (P3).
  const credential = urlCredentialProblem(url.href);
  if (credential !== undefined) throw new UsageError(`${homepage}: ${credential}`);
  // A host no site could have (nosuch..gov) is refused here, before the store is opened and a
  // request is logged, as `nor site` and `nor log --site` refuse it.
  const site = readSite(url.href);
  if (!site.ok) throw new UsageError(`"${homepage}" is not a site's address: ${site.reason}`);
  const net = netOptions(opts);
  if (opts.data === "") throw new UsageError("--data needs a directory, not an empty value");
  const loc = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
  // The store must be there already, whether --data names it or ./data is meant, as for
  // `nor log` or `nor mark`: a mistyped --data is refused (exit 2) naming the path, never a new
  // store made there to hold this one request log (nor in whatever directory this was run from).
  const store = await openStore(loc, saying({ create: false }));
  let result: DiscoverResult;
  try {
    // P8: discover stores what it reads in the archive; one gone while the index names copies
    // is refused as a night refuses it (exit 2), never made anew here, where the next night
    // would then take it for the archive and ask every page again in full.
    if (loc.kind === "sqlite") {
      const note = await archiveBeforeNight(archiveDir(loc.dir), store.db);
      if (note !== undefined) stderr().write(`nor discover: ${note}\n`);
    }
    // On PostgreSQL the archive is kept where `nor night` keeps it: --data, else ./data (each
    // machine its own directory, the index shared).
    const dataDir = loc.kind === "sqlite" ? loc.dir : (opts.data ?? "data");
    if (loc.kind !== "sqlite") ensureDataDir(dataDir);
    result = await discover(store, url.href, {
      clock: systemClock,
      ids: randomIds,
      dataDir,
      ...net,
      // A WARC file cut short, said once as `nor night` says it: discover goes on, the copies
      // past the cut asked again when needed (P8).
      onArchiveNote: (note) => void stderr().write(`nor discover: ${note}\n`),
    });
  } finally {
    await store.close();
  }
  if (opts.json) {
    shownStdout().write(`${JSON.stringify(result, null, 2)}\n`);
    process.exitCode = result.kind === "found" ? 0 : 1;
    return;
  }
  if (result.kind === "not-read") {
    const o = result.outcome;
    const why = "reason" in o ? `: ${o.reason}` : "";
    // P3: a private or loopback address is never asked unless the operator allows it (tests
    // and demos); said, so a person trying it on their own machine knows the option.
    const hint =
      o.kind === "blocked-address"
        ? `: ${blockedAddressWhy(o.address, opts.allowPrivateAddresses === true)}`
        : why;
    stderr().write(`nor: ${result.homepage} was not read (${o.kind}${hint})\n`);
    process.exitCode = 1;
    return;
  }
  shownStdout().write(format(result, opts.government ?? "GOVERNMENT-ID"));
  process.exitCode = 0;
}

/**
 * P3 in words for the address a homepage is at: which kind it is, and whether the option the
 * checker has for tests and demos would let it be asked (link-local, where cloud metadata
 * lives, never is).
 */

/**
 * Text a site wrote, made one line of a YAML comment: no line break of any kind (CR, LF, NEL,
 * the Unicode line and paragraph separators) nor other control character may end the comment
 * and put the site's own words into the catalog as an entry.
 */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}

function format(result: Extract<DiscoverResult, { kind: "found" }>, government: string): string {
  if (result.notPage !== undefined) {
    return `# ${result.homepage}: answered ${oneLine(result.notPage)}, not a web page: nothing was looked for in it\n`;
  }
  if (result.candidates.length === 0) {
    return `# ${result.homepage}: no advertised feed and no known platform page linked\n`;
  }
  // The id's first word: the host's first label, in the catalog's kebab-case (an IP literal's
  // brackets and colons made dashes).
  const label = new URL(result.homepage).hostname.replace(/^www\./, "").split(".")[0] ?? "";
  const host =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "site";
  const lines = [
    `# candidates found on ${result.homepage} (confirmed: false until a night reads them)`,
  ];
  result.candidates.forEach((c, i) => {
    const entry: Record<string, unknown> = {
      id: `${host}-${c.platform ?? c.access}-${i + 1}`,
      government,
      records: "other",
      access: c.access,
      url: c.url,
      ...(c.platform ? { platform: c.platform } : {}),
      confirmed: false,
    };
    lines.push(`# ${oneLine(c.label ?? c.url)}: ${c.confirmed.join("; ")}`);
    lines.push(stringify([entry]).trimEnd());
  });
  return `sources:\n${lines.map((l) => `  ${l}`.replace(/\n/g, "\n  ")).join("\n")}\n`;
}
