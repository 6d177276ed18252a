import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ConsoleEnv } from "./context";

/** Answers with a full HTML document (doctype first) rendered from a page's JSX. */
export async function render(
  c: Context<ConsoleEnv>,
  page: { toString(): string | Promise<string> },
  status: ContentfulStatusCode = 200,
) {
  return c.html(`<!doctype html>${await page.toString()}`, status);
}
