import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { askTlsPermission } from "@/lib/domains/operations";
import { mayIssueCertificate } from "@/lib/domains/service";

/** Caddy's on-demand TLS `ask`: 200 allows a certificate for the name, anything else refuses it. */
export const GET = apiRoute(askTlsPermission, async ({ query, reply }) =>
  reply(200, { hostname: await mayIssueCertificate(query.domain) }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
