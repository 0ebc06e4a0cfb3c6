import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getHealth } from "@/lib/health/operations";
import { checkHealth } from "@/lib/health/service";

export const GET = apiRoute(getHealth, async () => {
  const health = await checkHealth();
  const headers = { "Cache-Control": "no-store" };
  if (health.status !== "unavailable") return Response.json(health, { headers });
  return Response.json(
    { error: "This instance cannot serve: its database does not answer.", ...health },
    { status: 503, headers },
  );
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
