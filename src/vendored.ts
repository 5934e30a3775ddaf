/**
 * A package as `npm run build` bundled it into one file (dist/vendor/, scripts/bundle-vendor.mjs),
 * else the package itself: the same code, only slower to start (its many modules found, read and
 * compiled one by one). The bundle is not there when the sources run as TypeScript under vitest,
 * or after a build without the bundling step. `bundle` is a URL resolved against the caller's
 * own file, so it names dist/vendor only when the caller runs from dist/.
 */
export async function vendored<T>(bundle: URL, pkg: () => Promise<T>): Promise<T> {
  try {
    return (await import(bundle.href)) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw err;
    return pkg();
  }
}
