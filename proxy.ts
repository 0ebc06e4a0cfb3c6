import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { scanBuffer } from "@/lib/analytics/scans";
import { foreignServerAction, malformedRequest, undecodableServerAction } from "@/lib/http/malformed-request";
import { invalidationsSent } from "@/lib/links/invalidation";
import { serveVisit, visitFor } from "@/lib/resolution/door";

/** How long a visit's scan may wait for others to share its write: a little of the function's life, far less than a write. */
const SCAN_FLUSH_WINDOW_MS = 25;

/**
 * Short links on Vercel (and under `next start`): the same resolution core as the self-hosted
 * front door, so both give identical answers. Everything else continues to the application.
 */
export async function proxy(request: NextRequest, event: NextFetchEvent): Promise<Response> {
  const header = (name: string) => request.headers.get(name);
  const refused =
    malformedRequest(request.method, new URL(request.url).pathname) ??
    foreignServerAction(header) ??
    (await undecodableServerAction(request.method, header, () => request.clone().arrayBuffer()));
  if (refused) return new Response(refused.body, refused);
  const visit = await visitFor({
    method: request.method,
    hostHeader: request.headers.get("host"),
    pathname: request.nextUrl.pathname,
    search: request.nextUrl.search,
    header: (name) => request.headers.get(name),
  });
  if (!visit) return NextResponse.next();
  const { answer, scanRecorded } = await serveVisit(visit);
  // On Vercel an instance may freeze after the response: the scan must be written before then. The
  // visits of one window share that write, so a busy instance does not write once per visit.
  if (scanRecorded) event.waitUntil(scanBuffer().flushWithin(SCAN_FLUSH_WINDOW_MS));
  // A visit that blocked its link told the other instances; that too must be sent before a freeze.
  const sending = invalidationsSent();
  if (sending) event.waitUntil(sending);
  return new Response(answer.body === "" ? null : answer.body, { status: answer.status, headers: answer.headers });
}

export const config = {
  // Short links are one path segment; the app's assets and API never are resolved here. API paths
  // come here only when they carry a % that may be a malformed escape, which Next would answer with a bare 500.
  // The root is a page like any other: a damaged form posted to it must be refused here too.
  matcher: ["/", "/((?!_next/|api/).+)", "/api/(.*%.*)"],
};
