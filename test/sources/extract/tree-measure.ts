import type { AnyNode } from "domhandler";

/** The most attributes any one element under `node` carries. */
export function mostAttributes(node: AnyNode): number {
  let max = 0;
  const walk: AnyNode[] = [node];
  for (let n = walk.pop(); n; n = walk.pop()) {
    if ("attribs" in n) max = Math.max(max, Object.keys(n.attribs).length);
    if ("children" in n) walk.push(...n.children);
  }
  return max;
}
