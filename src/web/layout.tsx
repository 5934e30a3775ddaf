import type { Child, FC } from "hono/jsx";

/** The shared page frame. hono/jsx escapes every interpolated value. */
export const Layout: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · New on Record</title>
      <style>{`body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f4f4f4;padding:.5rem;overflow:auto}a{color:#0645ad}`}</style>
    </head>
    <body>
      <a href="#main">Skip to the content</a>
      <main id="main">{children}</main>
    </body>
  </html>
);
