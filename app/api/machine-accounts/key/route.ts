import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { recoverMachineKey } from "@/lib/payments/key-recovery";
import { recoverMachineAccountKey } from "@/lib/payments/operations";

/** Public: a signed message from the paying wallet replaces its machine account's key. */
export const POST = apiRoute(recoverMachineAccountKey, async ({ body, reply }) =>
  reply(200, { api_key: await recoverMachineKey(body) }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
