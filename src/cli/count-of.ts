/**
 * A count with its noun, singular or plural as the count asks: `1 source`, `2 sources`,
 * `0 problems`. `many` for a plural that is not the noun plus "s". (The directory's pages have
 * their own, web/public/format.ts, so a command loads no web module for it.)
 */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
