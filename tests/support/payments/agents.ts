import { x402Client, x402HTTPClient } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { Mppx, evm } from "mppx/client";
import type { PrivateKeyAccount } from "viem/accounts";
import { dispatch } from "../api";

/** What the agents fetch with: the app's route handlers, in-process. */
export const appFetch: typeof fetch = (input, init) => dispatch(new Request(input, init));

/** An MPP agent: mppx's client with its `evm` charge method, signing with this wallet. */
export function mppAgent(wallet: PrivateKeyAccount, token: { name: string; version: string }) {
  return Mppx.create({ methods: [evm({ account: wallet, authorization: token })], polyfill: false, fetch: appFetch });
}

/**
 * An x402 agent: @x402/fetch with @x402/evm's exact scheme, signing with this wallet. Its spend
 * controls (only well-known assets) stay on unless a test needs it to sign for anything.
 */
export function x402Agent(wallet: PrivateKeyAccount, options: { signAnything?: boolean } = {}) {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(wallet));
  if (options.signAnything) client.setSpendControls(false);
  const http = new x402HTTPClient(client);
  return {
    fetch: wrapFetchWithPayment(appFetch, client),
    /** The PAYMENT-SIGNATURE value answering this 402, as @x402/fetch would send it. */
    async paymentSignature(challenge: Response): Promise<string> {
      const required = http.getPaymentRequiredResponse(
        (name) => challenge.headers.get(name),
        await challenge
          .clone()
          .json()
          .catch(() => undefined),
      );
      const payload = await client.createPaymentPayload(required);
      return http.encodePaymentSignatureHeader(payload)["PAYMENT-SIGNATURE"]!;
    },
  };
}
