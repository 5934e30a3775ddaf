/**
 * P2: the public "for site owners" page, in the project's own words. Every number and the
 * User-Agent come from src/policy/constants.ts — the same constants the checker obeys — so
 * the page cannot drift from behaviour. Whom to write to comes from the User-Agent the
 * checker sends (P1): the built-in operator with the built-in one, otherwise the contact the
 * operator's own User-Agent carries, so a site owner writes to whoever runs the checker that
 * visits them.
 */
import type { FC } from "hono/jsx";
import {
  BODY_SILENCE_MS,
  BODY_TOTAL_MS,
  DEFAULT_USER_AGENT,
  HEADERS_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_REDIRECTS,
  MAX_RETRIES,
  MIN_GAP_MS,
  OPERATOR_EMAIL,
  OPERATOR_NAME,
  PRODUCT_TOKEN,
  RECHECK_EVERY_NIGHTS,
  RECHECK_SOON_NIGHTS,
  RETRY_AFTER_MAX_MS,
  RETRY_WAITS_MS,
  ROBOTS_TTL_MS,
} from "../policy/constants.js";
import { contactOf, hasBuiltInContact } from "../policy/ua-contact.js";
import { Layout } from "./layout.js";
import { onceEveryNights } from "./public/format.js";

const s = (ms: number) => `${ms / 1000} seconds`;
const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
const words = ["no", "once", "twice", "three times", "four times"] as const;
const HOUR_MS = 60 * 60 * 1000;
/**
 * A span of time in the page's words: a day, or so many hours (P16: the oldest robots.txt copy
 * the checker goes by, ROBOTS_TTL_MS; how often it reads the file is once each night).
 */
const span = (ms: number) => (ms === 24 * HOUR_MS ? "a day" : `${ms / HOUR_MS} hours`);

export interface SiteOwnersProps {
  userAgent?: string;
  /** Who runs the checker (`--operator-name`), named only beside a User-Agent of their own. */
  operatorName?: string | undefined;
}

/** Whom a site owner writes to: an address, a web page, or (never from the CLI) neither. */
export interface OperatorContact {
  name?: string;
  kind: "mail" | "page" | "unknown";
  /** The link (`mailto:…` or `https://…`); none for "unknown". */
  href?: string;
  /** What the page shows: the address, the page's URL. */
  text: string;
}

/**
 * The contact of the operator whose User-Agent this is. With the built-in User-Agent, the
 * built-in operator (OPERATOR_NAME at OPERATOR_EMAIL); with any other, the `(+mailto:…)` or
 * `(+https://…)` it carries (src/net/user-agent.ts: the only forms `nor serve` and `nor night`
 * accept), and the name only if the operator gave one: never the built-in operator's.
 */
export function operatorContact(userAgent: string, operatorName?: string): OperatorContact {
  if (hasBuiltInContact(userAgent))
    return {
      name: OPERATOR_NAME,
      kind: "mail",
      href: `mailto:${OPERATOR_EMAIL}`,
      text: OPERATOR_EMAIL,
    };
  const name = operatorName === undefined || operatorName === "" ? {} : { name: operatorName };
  const contact = contactOf(userAgent);
  if (contact === undefined)
    return { ...name, kind: "unknown", text: "the contact in its User-Agent, above" };
  if (contact.startsWith("mailto:")) {
    const address = contact.slice("mailto:".length);
    // RFC 6068: in a mailto URI, `?` starts the headers and `#` a fragment; `%` is an escape.
    // Each is percent-encoded in the link, so it leads to the address it shows.
    const href = `mailto:${address.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
    return { ...name, kind: "mail", href, text: address };
  }
  return { ...name, kind: "page", href: contact, text: contact };
}

export const SiteOwnersPage: FC<SiteOwnersProps> = ({
  userAgent = DEFAULT_USER_AGENT,
  operatorName,
}) => {
  const contact = operatorContact(userAgent, operatorName);
  // The November 2026 visits and their faults are the built-in operator's to tell.
  const builtIn = hasBuiltInContact(userAgent);
  const link =
    contact.href === undefined ? contact.text : <a href={contact.href}>{contact.text}</a>;
  return (
    <Layout title={`For site owners: ${PRODUCT_TOKEN}`}>
      <h1>For site owners: {PRODUCT_TOKEN}</h1>
      <p>
        Seeing <code>{PRODUCT_TOKEN}</code> in your logs? This page says what it is, what it reads,
        how fast it goes and how to tell it to slow down or stay away.
      </p>

      <h2>What it is</h2>
      <p>
        It is the nightly checker of New on Record, a public directory of where Ohio's governments
        post their public records. Each night it opens the one page or file where your site lists
        its newest records (bids, agendas, minutes, permits, notices), checks that it still opens
        and still lists records, and notes what is new.
      </p>
      <p>
        It is not a search engine and it does not gather material for AI search or training. Its
        name stays the same whatever a robots.txt says about other programs.
      </p>
      <p>
        {contact.name === undefined ? (
          <>The person who runs it can be reached at {link}.</>
        ) : (
          <>
            {contact.name} runs it: {link}.
          </>
        )}
      </p>

      <h2>How it names itself</h2>
      <p>Every request it sends carries this User-Agent header:</p>
      <pre id="user-agent">{userAgent}</pre>
      {builtIn && contactOf(userAgent) !== `mailto:${OPERATOR_EMAIL}` ? (
        <p id="ua-contact">
          The address in it, {contactOf(userAgent)?.slice("mailto:".length)}, reaches the same
          person as {OPERATOR_EMAIL}.
        </p>
      ) : null}
      <p>
        It never presents itself as a web browser or as any other product. In robots.txt, the name
        to use is <code>{PRODUCT_TOKEN}</code>.
      </p>

      <h2>What it reads</h2>
      <ul>
        <li>Public pages and files only. It never signs in and never sends a password or key.</li>
        <li>
          An API, a download file or a feed that your robots.txt allows comes first; a page made for
          people is its last choice.
        </li>
        <li>It can fill in a public search form and turn its result pages, as a visitor would.</li>
        <li>It stays on the list page: it follows no links away and opens no record's page.</li>
        <li>
          On a new source it also reads a few older pages of the same list each night, at the same
          pace, until it reaches the end; after that only what is new.
        </li>
        <li>
          It keeps a private copy of what it reads, so it never asks for a page again just to get
          back what it already read; the next night it asks with the validators your page gave
          (ETag, Last-Modified), so an unchanged page can answer 304.
        </li>
      </ul>
      {builtIn ? (
        <>
          <p id="before-the-nights">
            In November 2026, before the nightly checks began, the same name visited these sites to
            find the pages in the directory and confirm them.
          </p>
          <p id="faults">
            Faults in how it followed robots.txt during those visits let 20 requests reach paths
            that robots.txt disallowed: three kinds of robots.txt file were misread, redirects to
            another host were followed without reading that host's robots.txt, and once a site's
            robots.txt was read from the wrong port. All of them were fixed on November 8, 2026, and
            nothing those requests brought back was kept.
          </p>
        </>
      ) : null}

      <h2>How fast</h2>
      <ul>
        <li id="one-at-a-time">One request at a time to your site.</li>
        <li id="gap">
          At least {s(MIN_GAP_MS)} from the end of one request to the start of the next. A
          robots.txt <code>Crawl-delay</code> longer than that is used instead.
        </li>
        <li>
          A night's check costs each source one or two requests, about what one person looking once
          a day would.
        </li>
        <li>
          If you sent an ETag or Last-Modified last time, it asks with If-None-Match or
          If-Modified-Since, so an unchanged page costs a 304.
        </li>
        <li>
          Each night has a time limit. A source not reached in time waits for the next night; it
          never speeds up to fit more in.
        </li>
        <li id="limits">
          It waits at most {s(HEADERS_TIMEOUT_MS)} for an answer to begin, counted from the start of
          the request, connecting included. Once the answer has begun, it reads for at most{" "}
          {s(BODY_TOTAL_MS)} in all, and at most {s(BODY_SILENCE_MS)} of silence; an answer that
          runs past either limit is not tried again that night. It stops reading any answer at{" "}
          {mib(MAX_BODY_BYTES)}.
        </li>
        <li id="retries">
          After a 5xx or a 429 it tries at most {words[MAX_RETRIES]} more. It waits what your
          Retry-After says, up to {s(RETRY_AFTER_MAX_MS)} (longer means not again that night); sent
          more than once, the longest counts, and one it cannot read means not again that night.
          Without one, {s(RETRY_WAITS_MS[0])}, then {s(RETRY_WAITS_MS[1])}. A connection closed
          before the answer is complete is tried again the same way; other errors are not. If a page
          still answers 502, 503 or 504 after those tries (or asks for a longer wait), it takes your
          site as down for that night: it asks nothing more of it until the next night, and that is
          not counted as a no. A 500 is taken as that page's error alone.
        </li>
      </ul>

      <h2>How it reads robots.txt</h2>
      <ul>
        <li>
          At most once each night (it runs once a day), it reads your robots.txt from the same
          scheme, host and port as the page. If the file came with an ETag or Last-Modified, it asks
          with If-None-Match or If-Modified-Since, so an unchanged file costs a 304. It never goes
          by a copy more than {span(ROBOTS_TTL_MS)} old. It follows the group for{" "}
          <code>{PRODUCT_TOKEN}</code>, or the <code>*</code> group when there is none.
        </li>
        <li>
          It reads the file as RFC 9309 says: a blank line does not end a group, a byte-order mark
          is skipped, and <code>User-agent: * Disallow: /</code> on one line means the two lines it
          looks like.
        </li>
        <li>It never requests a path your robots.txt disallows for it.</li>
        <li id="redirects">
          Before following a redirect to another host it reads that host's robots.txt; it follows at
          most {MAX_REDIRECTS} redirects in a row.
        </li>
        <li>A robots.txt answering 404 or another 4xx allows everything.</li>
        <li>
          A robots.txt answering 429 or 5xx, or one that cannot be read, keeps it off the host (and
          port) that robots.txt is for, for that night; night after night, that counts as a no
          (below).
        </li>
      </ul>

      <h2>When your site says no</h2>
      <p>
        A 401, a 403, a CAPTCHA or "prove you are human" page, a 429 that outlasts its retries, a
        failed secure connection, or a connection closed on every attempt: each is a no. On a no it
        stops on your site for the night. It never tries again another way: not with another user
        agent, a browser, another address, or borrowed cookies. Cookies your site sets go back only
        to your site, and only during that night's check.
      </p>
      <p>
        The directory shows that night's no. A no may not last: while the directory still reads the
        source, the checker comes back the next night, the same way and at the same pace.
      </p>
      <p>
        Only a person marks a source as not read, with the reason, when a site's rules say no or it
        keeps turning the checker away. After that the checker looks again on up to{" "}
        {RECHECK_SOON_NIGHTS} nights soon after, then {onceEveryNights(RECHECK_EVERY_NIGHTS)}, and
        only if your robots.txt allows; it takes no records then. If your site answers again, a
        person decides whether to read it again:{" "}
        {contact.kind === "page" ? (
          <>ask for that through {link}.</>
        ) : (
          <>write to {link} to ask for that.</>
        )}
      </p>

      <h2>Asking it to slow down or stay away</h2>
      <p>
        robots.txt is quickest: the checker reads it again each night, unless it read it earlier
        that day, and never goes by a copy older than {span(ROBOTS_TTL_MS)}, so it sees a change
        within {span(ROBOTS_TTL_MS)}. To keep it off:
      </p>
      <pre>{`User-agent: ${PRODUCT_TOKEN}\nDisallow: /`}</pre>
      <p>To slow it to one request every 30 seconds:</p>
      <pre>{`User-agent: ${PRODUCT_TOKEN}\nCrawl-delay: 30`}</pre>
      <p>To keep it off part of your site, add Disallow lines for those paths to the same group.</p>
      <p>
        A group for <code>{PRODUCT_TOKEN}</code> replaces your <code>*</code> group for this
        checker, so copy into it any <code>*</code> rules that should still apply.{" "}
        {contact.kind === "page" ? (
          <>
            Or tell its operator, through {link}, your site's address and what you would like: a
            slower pace, some pages left alone, or the whole site left alone.
          </>
        ) : (
          <>
            Or write to {link} with your site's address and what you would like: a slower pace, some
            pages left alone, or the whole site left alone.
          </>
        )}{" "}
        Your public pages stay listed, with their links, marked as not read and why.
      </p>

      <h2>If it caused a problem</h2>
      <p>
        {contact.kind === "page" ? (
          <>Tell its operator, through {link}, the time and the address it requested.</>
        ) : (
          <>Write to {link} with the time and the address it requested.</>
        )}{" "}
        Every request is logged, so those two are enough to find it.
      </p>
    </Layout>
  );
};
