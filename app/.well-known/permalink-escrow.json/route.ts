import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { keysDocument } from "@/lib/escrow/keys";
import { getEscrowKeys } from "@/lib/escrow/operations";

/** GET /api/escrow/keys at the address the escrow format names: every key snapshots were signed with. */
export const GET = apiRoute({ ...getEscrowKeys, path: "/.well-known/permalink-escrow.json" }, async ({ reply }) =>
  reply(200, await keysDocument()),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
