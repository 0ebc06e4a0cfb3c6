import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { METADATA_HEADERS, protectedResourceMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

/** RFC 9728's protected resource metadata of the MCP server, at the well-known root (clients that do not insert the path). */
export const GET = apiRoute({ auth: "public", crossOrigin: true, path: "/.well-known/oauth-protected-resource" }, async () =>
  json(protectedResourceMetadata(), 200, METADATA_HEADERS),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
