import { scanBuffer } from "@/lib/analytics/scans";
import { behindFrontDoor, splitFrontDoorPeer } from "@/lib/http/client-address";
import { foreignServerAction, malformedRequest, undecodableServerAction, type Refusal } from "@/lib/http/malformed-request";
import { invalidationsSent } from "@/lib/links/invalidation";
import { formRefusedAnswer } from "@/lib/resolution/answer";
import {
  applicationRefusal,
  MAX_FORM_BYTES,
  serveVisit,
  visitFor,
  withFormPassword,
  type DoorRequest,
  type Served,
} from "@/lib/resolution/door";
import { flushPreviewCounts } from "@/lib/resolution/previews";
import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";

/** How long a visit's scan may wait for others to share its write: a little of the function's life, far less than a write. */
const SCAN_FLUSH_WINDOW_MS = 25;

/**
 * Short links on Vercel (and under `next start`): the same resolution core as the self-hosted
 * front door, so both give identical answers. Everything else continues to the application,
 * unless its host serves short links only.
 */
export async function proxy(request: NextRequest, event: NextFetchEvent): Promise<Response> {
  const malformed = malformedRequest(request.method, request.nextUrl.pathname);
  if (malformed) return new Response(malformed.body, malformed);
  // Behind npm start's front door, the last X-Forwarded-For entry is the peer it appended.
  const frontDoor = behindFrontDoor.get() ? splitFrontDoorPeer(request.headers.get("x-forwarded-for")) : null;
  const door: DoorRequest = {
    method: request.method,
    hostHeader: request.headers.get("host"),
    pathname: request.nextUrl.pathname,
    search: request.nextUrl.search,
    header: (name) => (frontDoor && name === "x-forwarded-for" ? frontDoor.forwardedFor : request.headers.get(name)),
    peerAddress: frontDoor?.peerAddress ?? null,
  };
  const visit = await visitFor(door);
  if (visit?.method === "POST") {
    const body = await readForm(request);
    if (body === null) return answerResponse(formRefusedAnswer());
    return visitAnswer(await serveVisit(withFormPassword(visit, body)), event);
  }
  if (visit) return visitAnswer(await serveVisit(visit), event);
  const refused = (await applicationRefusal(door)) ?? (await damagedPageForm(request, door.header));
  return refused ? new Response(refused.body === "" ? null : refused.body, refused) : NextResponse.next();
}

/** Next decodes server actions and forms posted to pages (never to the API), and fails with a bare 500 on what it cannot. */
async function damagedPageForm(request: NextRequest, header: DoorRequest["header"]): Promise<Refusal | null> {
  if (request.nextUrl.pathname.startsWith("/api/")) return null;
  return (
    foreignServerAction(request.method, header) ??
    (await undecodableServerAction(request.method, header, () => request.clone().arrayBuffer()))
  );
}

function visitAnswer({ answer, scanRecorded, previewCounted }: Served, event: NextFetchEvent): Response {
  // On Vercel an instance may freeze after the response: the scan must be written before then. The
  // visits of one window share that write, so a busy instance does not write once per visit.
  if (scanRecorded) event.waitUntil(scanBuffer().flushWithin(SCAN_FLUSH_WINDOW_MS));
  // A crawler's preview is counted on the link, likewise before a freeze.
  if (previewCounted) event.waitUntil(flushPreviewCounts());
  // A visit that blocked its link told the other instances; that too must be sent before a freeze.
  const sending = invalidationsSent();
  if (sending) event.waitUntil(sending);
  return answerResponse(answer);
}

function answerResponse(answer: Served["answer"]): Response {
  return new Response(answer.body === "" ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/** A protected link's form sent back: its body, or null when it is longer than a form's bound. */
async function readForm(request: NextRequest): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_FORM_BYTES) return null;
  const body = await request.text().catch(() => null);
  return body !== null && Buffer.byteLength(body) <= MAX_FORM_BYTES ? body : null;
}

export const config = {
  // Every path but Next's assets: short links are one path segment, and every other path may come
  // on a host that serves short links only, which the application must not answer (ADR 0005).
  matcher: ["/((?!_next/).*)"],
};
