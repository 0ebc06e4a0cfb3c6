import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { call, type TestUser } from "./api";

type Caller = Pick<TestUser, "token"> & { headers?: Record<string, string> };
type Search = Record<string, string>;
type Page = (props: { params: Promise<{ id: string }>; searchParams: Promise<Search> }) => Promise<ReactElement>;

/** Renders a page (a React server component) the way Next would for GET /…/<id>?<search>, to HTML. */
export async function renderPage(page: Page, id: string, search: Search = {}): Promise<string> {
  return renderToStaticMarkup(await page({ params: Promise.resolve({ id }), searchParams: Promise.resolve(search) }));
}

/** The id at the end of a local checkout or portal URL. */
export function sessionIdOf(url: string): string {
  return new URL(url).pathname.split("/").at(-1)!;
}

export const createLink = (caller: Caller, body: Record<string, unknown>) => call("POST", "/api/links", { ...caller, body });

export const startCheckout = (caller: Caller, body: unknown = {}) => call("POST", "/api/billing/checkout", { ...caller, body });

export async function openPortal(caller: Caller): Promise<string> {
  const portal = await call("POST", "/api/billing/portal", caller);
  if (portal.status !== 200) throw new Error(`The billing portal did not open: ${portal.status} ${portal.text}`);
  return sessionIdOf(portal.body.url);
}

/** Cancels the subscription the way a customer does: the portal's "Cancel subscription" form. */
export async function cancelThroughPortal(caller: Caller): Promise<void> {
  const cancelled = await call("POST", `/billing/local/portal/${await openPortal(caller)}/cancel`);
  if (cancelled.status !== 303) throw new Error(`The subscription was not cancelled: ${cancelled.status} ${cancelled.text}`);
}

/** The form POST of a plain HTML form (application/x-www-form-urlencoded). */
export function submitForm(path: string, fields: Record<string, string> = {}) {
  return call("POST", path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

export const KEEP_RESOLVING_SENTENCE = /Existing links keep resolving\./;
