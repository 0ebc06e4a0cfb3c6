import { readJsonBody, validate } from "@/lib/http/body";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { enforceClientWriteLimit } from "@/lib/http/write-limit";
import { recoverMachineKey } from "@/lib/payments/key-recovery";
import { recoverKeyBody } from "@/lib/payments/schemas";

/** Public: a signed message from the paying wallet replaces its machine account's key. */
export function POST(request: Request): Promise<Response> {
  return handleErrors(async () => {
    await enforceClientWriteLimit(request);
    const proof = validate(recoverKeyBody, await readJsonBody(request), "body");
    return json({ api_key: await recoverMachineKey(proof) });
  });
}
