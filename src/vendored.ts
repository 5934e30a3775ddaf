/**
 * A package as `npm run build` bundled it into one file (dist/vendor/, scripts/bundle-vendor.mjs),
 * else the package itself: the same code, only slower to start (its many modules found, read and
 * compiled one by one). The bundle is not there when the sources run as TypeScript under vitest,
 * or after a build without the bundling step; one cut short, or without a name the caller takes
 * (`names`: another build's), is passed over too. `bundle` is a URL resolved against the caller's
 * own file, so it names dist/vendor only when the caller runs from dist/.
 */
export async function vendored<T>(
  bundle: URL,
  pkg: () => Promise<T>,
  names: readonly (keyof T & string)[] = [],
): Promise<T> {
  let mod: T;
  try {
    mod = (await import(bundle.href)) as T;
  } catch {
    // Not there, or not whole (cut short: it does not parse). The package is the same code:
    // an error of its own is thrown by it as by the bundle, and said as it is.
    return pkg();
  }
  // `names`: what the caller takes. A bundle without one of them is of another build (a tsc
  // alone after the caller took one more, or a list in scripts/vendor/ that forgot it): the
  // package, as without the bundle, not a value that is undefined.
  return names.every((n) => (mod as Record<string, unknown>)[n] !== undefined) ? mod : pkg();
}
