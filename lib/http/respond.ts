const API_HEADERS = { "Cache-Control": "no-store", "Content-Type": "application/json; charset=utf-8" };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...API_HEADERS, ...headers } });
}

export const INTERNAL_ERROR_MESSAGE = "Something went wrong on our side; the request was not completed. Please try again.";

export function internalError(error: unknown): Response {
  console.error("Unhandled API error:", error instanceof Error ? error.stack : error);
  return json({ error: INTERNAL_ERROR_MESSAGE }, 500);
}

/** After a form's POST: the browser follows with a GET, so reloading does not submit twice. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}
