/**
 * Next's own floor under the Vercel door: a request proxy that answers every visit with a fixed
 * 302, without any of Permalink's code. `npm run bench` measures it beside the real proxy.ts under
 * `next start`, so the table shows what Next's proxy machinery costs and what ours adds to it.
 */
export function proxy(): Response {
  return new Response(null, { status: 302, headers: { location: "https://example.com/menu", "cache-control": "no-store" } });
}

export const config = {
  matcher: ["/((?!_next/|api/).+)"],
};
