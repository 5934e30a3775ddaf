import type { Context } from "hono";
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

/** A page's 400: the request is not understood, with the way back to `back` (a path). */
export const badRequestPage = (c: Context, message: string, back: string) =>
  c.html(
    <MessagePage
      title="That request is not understood"
      message={message}
      back={{ href: back, text: "Start again" }}
    />,
    400,
  );
