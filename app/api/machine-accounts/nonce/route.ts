import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { enforceClientWriteLimit } from "@/lib/http/write-limit";
import { issueRecoveryNonce } from "@/lib/payments/key-recovery";

/** Public: a single-use nonce for the Sign-In-with-Ethereum message that recovers a machine account's key. */
export function GET(request: Request): Promise<Response> {
  return handleErrors(async () => {
    await enforceClientWriteLimit(request);
    return json(await issueRecoveryNonce());
  });
}
