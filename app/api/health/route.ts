import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getHealth } from "@/lib/health/operations";
import { healthAnswer } from "@/lib/health/service";

export const GET = apiRoute(getHealth, async ({ operator, reply }) => {
  const answer = await healthAnswer(operator);
  return answer.status === 200 ? reply(200, answer.body) : reply(503, answer.body);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
