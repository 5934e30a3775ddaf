/**
 * What `nor start` says, caught in a test (its `say` dependency): every line, and a promise
 * that resolves once a line matching `re` has been said (at once when one has).
 */
export function sayings(): {
  lines: string[];
  say: (line: string) => void;
  said: (re: RegExp) => Promise<void>;
} {
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const say = (line: string) => {
    lines.push(line);
    for (const w of waiters.filter((x) => x.re.test(line))) w.resolve();
  };
  const said = (re: RegExp) =>
    lines.some((l) => re.test(l))
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ re, resolve }));
  return { lines, say, said };
}
