import type { Context } from "hono";
import type { FC } from "hono/jsx";
import { Layout } from "../../layout.js";
import { echo } from "../echo.js";

/**
 * 400 and 404 pages: say what was wrong and where to go, in plain words. The message often says
 * back what was asked (an id, a value): its control characters are shown escaped (echo.ts).
 */
export const MessagePage: FC<{
  title: string;
  message: string;
  back?: { href: string; text: string };
}> = ({ title, message, back }) => (
  <Layout title={title}>
    <h1>{title}</h1>
    <p class="message">{echo(message)}</p>
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
