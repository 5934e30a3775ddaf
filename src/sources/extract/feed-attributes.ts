/**
 * P13, P14: how many attributes one element of an XML feed may carry. fast-xml-parser (under
 * feedsmith) spends about 8 µs and 800 bytes on each attribute: one RSS item of 1,000,000
 * attributes (11.9 MB) took 10.6 s of CPU and 840 MB, 500,000 `xmlns:` declarations on `<rss>`
 * 4.7 s (docs/benchmarks.md). Real feeds carry a few on an element, a few dozen namespace
 * declarations on the root at most. So before the parse one pass over the text counts each start
 * tag's attributes (outside comments, CDATA sections, processing instructions and quoted values),
 * and a feed with an element past FEED_ATTRIBUTES_PER_ELEMENT is not read, its note saying why.
 */

export const FEED_ATTRIBUTES_PER_ELEMENT = 1_000;

/** The index just past `end` searched from `from`, or -1 when it is not there. */
function past(t: string, end: string, from: number): number {
  const at = t.indexOf(end, from);
  return at === -1 ? -1 : at + end.length;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The note for a feed one of whose elements carries more than FEED_ATTRIBUTES_PER_ELEMENT
 * attributes, else undefined. Linear in the text: each character is looked at once.
 */
export function tooManyFeedAttributes(t: string): string | undefined {
  for (let i = t.indexOf("<"); i !== -1 && i < t.length; i = t.indexOf("<", i)) {
    if (t.startsWith("<!--", i)) i = past(t, "-->", i + 4);
    else if (t.startsWith("<![CDATA[", i)) i = past(t, "]]>", i + 9);
    else if (t.startsWith("<?", i)) i = past(t, "?>", i + 2);
    else if (t.startsWith("</", i) || t.startsWith("<!", i)) i = past(t, ">", i + 2);
    else {
      // A start tag: an attribute begins where a name follows whitespace (`a="1"`, a bare `a`).
      let n = 0;
      let space = false;
      let j = i + 1;
      for (; j < t.length; j++) {
        const c = t.charCodeAt(j);
        if (c === 0x3e /* > */) break;
        if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
          j = t.indexOf(c === 0x22 ? '"' : "'", j + 1);
          if (j === -1) return undefined; // unclosed: the parser says what is wrong
          space = false;
        } else if (isSpace(c)) space = true;
        else {
          if (
            space &&
            c !== 0x3d /* = */ &&
            c !== 0x2f /* / */ &&
            ++n > FEED_ATTRIBUTES_PER_ELEMENT
          )
            return `the feed gives an element too many attributes to read without holding up the night (more than ${FEED_ATTRIBUTES_PER_ELEMENT.toLocaleString("en-US")} on one element)`;
          space = false;
        }
      }
      i = j + 1;
    }
    if (i === -1) return undefined;
  }
  return undefined;
}
