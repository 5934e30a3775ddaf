/**
 * A pure function's answers kept by argument, for arguments asked over and over (a night's
 * dates, its URLs' sites, a recipe's selectors). Bounded, since a long-lived process (`nor
 * start`) asks without end: emptied when full, by count or, with `weight`, by the arguments'
 * summed weight (long strings). An argument whose computing throws is not kept, so it throws
 * again the next time; `undefined` is an answer like any other.
 */
export function keptAnswers<K, V>(
  compute: (key: K) => V,
  limits: { max: number; weight?: (key: K) => number; maxWeight?: number },
): (key: K) => V {
  const kept = new Map<K, V>();
  let weight = 0;
  return (key) => {
    if (kept.has(key)) return kept.get(key) as V;
    const answer = compute(key);
    const w = limits.weight?.(key) ?? 0;
    if (kept.size >= limits.max || weight + w > (limits.maxWeight ?? Number.POSITIVE_INFINITY)) {
      kept.clear();
      weight = 0;
    }
    kept.set(key, answer);
    weight += w;
    return answer;
  };
}
