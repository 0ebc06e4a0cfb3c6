import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { issueRecoveryNonce } from "@/lib/payments/key-recovery";
import { getRecoveryNonce } from "@/lib/payments/operations";

/** Public: a single-use nonce for the Sign-In-with-Ethereum message that recovers a machine account's key. */
export const GET = apiRoute(getRecoveryNonce, async ({ reply }) => reply(200, await issueRecoveryNonce()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
