import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { keysDocument } from "@/lib/escrow/keys";
import { getEscrowKeys } from "@/lib/escrow/operations";

export const GET = apiRoute(getEscrowKeys, async ({ reply }) => reply(200, await keysDocument()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
