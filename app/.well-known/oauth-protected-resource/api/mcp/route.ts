import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { METADATA_HEADERS, protectedResourceMetadata } from "@/lib/oauth/metadata";

export const dynamic = "force-dynamic";

/** RFC 9728 §3.1: the metadata of the resource /api/mcp, at the well-known path with the resource's path after it (what every 401 names). */
export const GET = apiRoute(
  { auth: "public", crossOrigin: true, path: "/.well-known/oauth-protected-resource/api/mcp" },
  async () => json(protectedResourceMetadata(), 200, METADATA_HEADERS),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
