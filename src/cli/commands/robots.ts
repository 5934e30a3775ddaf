import { statSync } from "node:fs";
import type { Command } from "commander";
import { NorError, UsageError } from "../../errors.js";
import { checkUrl } from "../../net/redirects.js";
import { PRODUCT_TOKEN, ROBOTS_MAX_BYTES } from "../../policy/constants.js";
import { decodeRobotsBody, ROBOTS_READ_BYTES, robotsVerdict } from "../../policy/robots/index.js";
import { readFirstBytes } from "../bounded-file.js";
import { stdout } from "../io.js";

/**
 * `nor robots check <file> <url> [--agent <token or UA>]`: what public-records-check would
 * make of a robots.txt file for one URL (P16, P17). Prints `allowed` or `disallowed`, then
 * `crawl-delay: N` when the chosen group sets one. Both verdicts exit 0; bad usage exits 2.
 */
export function register(program: Command): void {
  const robots = program
    .command("robots")
    .description("Tools for robots.txt files: what one allows public-records-check to read");
  robots
    .command("check")
    .description("Say whether a robots.txt file allows a URL for public-records-check")
    .argument("<file>", "a robots.txt file, read as bytes")
    .argument("<url>", "the http(s) URL to check")
    .option("--agent <agent>", "product token or full User-Agent", PRODUCT_TOKEN)
    .action(async (file: string, url: string, opts: { agent: string }) => {
      stdout().write(await checkRobotsFile(file, url, opts.agent));
      process.exitCode = 0;
    });
}

/**
 * The command's output text; throws UsageError naming the file or URL on bad input. The file's
 * bytes take the night's way (P16–P18): decoded once, as the robots gate decodes a fetched
 * body before caching it, then judged by the same robotsVerdict the fetcher asks.
 */
export async function checkRobotsFile(file: string, url: string, agent: string): Promise<string> {
  const target = parseTarget(url);
  // As a night reads a fetched one: its first 500 KiB (after a BOM) and a little more, the rest never read (a file
  // that never ends, /dev/zero, is read no further).
  const bytes = readFirstBytes(file, ROBOTS_READ_BYTES, "robots.txt file");
  const decoded = decodeRobotsBody(bytes);
  const v = robotsVerdict({ state: "rules", body: decoded.text }, target.href, agent);
  // Rules and an http(s) URL always give a verdict; "unknown" here would be a bug.
  if (v.verdict === "unknown")
    throw new NorError("E_INTERNAL", `no verdict for ${url}: ${v.reason}`);
  const delay = v.crawlDelaySeconds === undefined ? "" : `crawl-delay: ${v.crawlDelaySeconds}\n`;
  // P17 (RFC 9309 §2.5): the first 500 KiB are read, as a night reads a fetched one; said, so
  // a rule further down that seems ignored is not a mystery.
  const size = sizeOf(file);
  const cut = decoded.truncated
    ? `note: ${file} is ${size === undefined ? `more than ${ROBOTS_MAX_BYTES.toLocaleString("en-US")} bytes` : `${size.toLocaleString("en-US")} bytes`}; only its first ${ROBOTS_MAX_BYTES.toLocaleString("en-US")} are read (RFC 9309 §2.5), as a night reads a fetched robots.txt\n`
    : "";
  return `${v.verdict}\n${delay}${cut}`;
}

/** A regular file's size; undefined for a device or a pipe, which has none to tell. */
function sizeOf(file: string): number | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The URL as a night would send it and judge it (P18, P27): its one normal form (no fragment,
 * no empty query, escapes of unreserved characters decoded), so `/records?` is judged as the
 * `/records` a night asks for. A URL a night never sends (user-info, no stable normal form, too
 * long) is said as such.
 */
function parseTarget(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`not a valid URL: ${url}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError(`not an http(s) URL: ${url}`);
  }
  const checked = checkUrl(url);
  if (!checked.ok) throw new UsageError(`a URL the checker never asks for: ${checked.reason}`);
  return checked.url;
}
