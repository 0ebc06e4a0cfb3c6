import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getHealth } from "@/lib/health/operations";
import { checkHealth } from "@/lib/health/service";

export const GET = apiRoute(getHealth, async ({ reply }) => {
  const health = await checkHealth();
  if (health.status !== "unavailable") return reply(200, health);
  return reply(503, { error: "This instance cannot serve: its database does not answer.", ...health });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
