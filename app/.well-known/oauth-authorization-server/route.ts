import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { authorizationServerMetadata, METADATA_HEADERS } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

/** RFC 8414's authorization server metadata; the issuer is the deployment's origin, so the path has nothing after it. */
export const GET = apiRoute({ auth: "public", crossOrigin: true, path: "/.well-known/oauth-authorization-server" }, async () =>
  json(authorizationServerMetadata(), 200, METADATA_HEADERS),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
