import type { FC } from "hono/jsx";
import { Layout } from "../../layout.js";

/** 400 and 404 pages: say what was wrong and where to go, in plain words. */
export const MessagePage: FC<{
  title: string;
  message: string;
  back?: { href: string; text: string };
}> = ({ title, message, back }) => (
  <Layout title={title}>
    <h1>{title}</h1>
    <p class="message">{message}</p>
    <p>
      {back ? (
        <>
          <a href={back.href}>{back.text}</a> ·{" "}
        </>
      ) : null}
      <a href="/">The directory's front page</a>
    </p>
  </Layout>
);
