import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; form: Record<string, string> };

export type StripeStandIn = {
  /** For STRIPE_API_BASE. */
  url: string;
  requests: RecordedRequest[];
  /** What GET /v1/subscriptions/{id} answers. */
  subscriptions: Map<string, unknown>;
  /** The next request is answered with this Stripe error instead. */
  failNextWith(status: number, error: { type: string; message: string }): void;
  close(): Promise<void>;
};

/**
 * A local HTTP stand-in for api.stripe.com: records what the stripe library sends (form-encoded
 * bodies, flattened as `line_items[0][price]`) and answers with Stripe-shaped JSON.
 */
export async function startStripeStandIn(): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  const subscriptions = new Map<string, unknown>();
  let failure: { status: number; error: { type: string; message: string } } | null = null;
  let counter = 0;

  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://stand-in").pathname;
      requests.push({
        method: request.method ?? "",
        path,
        headers: request.headers,
        form: Object.fromEntries(new URLSearchParams(body)),
      });
      const answer = failure ?? route(request.method ?? "", path, ++counter);
      failure = null;
      response.writeHead(answer.status, { "content-type": "application/json", "request-id": `req_${counter}` });
      response.end(JSON.stringify("error" in answer ? { error: answer.error } : answer.body));
    });
  });

  function route(
    method: string,
    path: string,
    n: number,
  ): { status: number; body: unknown } | { status: number; error: { type: string; message: string } } {
    if (method === "POST" && path === "/v1/customers") return { status: 200, body: { id: `cus_test_${n}`, object: "customer" } };
    if (method === "POST" && path === "/v1/checkout/sessions") {
      return {
        status: 200,
        body: { id: `cs_test_${n}`, object: "checkout.session", url: `https://checkout.stripe.com/c/pay/cs_test_${n}` },
      };
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      return {
        status: 200,
        body: {
          id: `bps_test_${n}`,
          object: "billing_portal.session",
          url: `https://billing.stripe.com/p/session/bps_test_${n}`,
        },
      };
    }
    const subscription =
      method === "GET" && path.startsWith("/v1/subscriptions/") ? subscriptions.get(path.split("/").at(-1)!) : undefined;
    if (subscription) return { status: 200, body: subscription };
    return { status: 404, error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    subscriptions,
    failNextWith: (status, error) => (failure = { status, error }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
