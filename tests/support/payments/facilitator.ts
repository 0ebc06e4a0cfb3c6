import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Eip3009Ledger } from "./ledger";

export type RunningFacilitator = { url: string; calls: { verify: number; settle: number }; close(): Promise<void> };

/**
 * A real x402 facilitator (@x402/core with @x402/evm's exact scheme) served over HTTP on
 * 127.0.0.1, as the app reaches the public one: POST /verify, POST /settle, GET /supported.
 * Only its chain is the in-memory ledger.
 */
export async function startFacilitator(network: string, ledger: Eip3009Ledger): Promise<RunningFacilitator> {
  const facilitator = new x402Facilitator().register(network as `${string}:${string}`, new ExactEvmScheme(ledger.signer()));
  const calls = { verify: 0, settle: 0 };
  const server = createServer((request, response) => void answer(request, response));

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown): void => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (request.method === "GET" && request.url === "/supported") return send(200, facilitator.getSupported());
    if (request.method !== "POST" || (request.url !== "/verify" && request.url !== "/settle"))
      return send(404, { error: "not found" });
    const { paymentPayload, paymentRequirements } = JSON.parse(await readBody(request));
    if (request.url === "/verify") {
      calls.verify++;
      const verified = await facilitator.verify(paymentPayload, paymentRequirements).catch((error: Error) => ({
        isValid: false,
        invalidReason: "unexpected_verify_error",
        invalidMessage: error.message,
      }));
      return send(200, verified);
    }
    calls.settle++;
    const settled = await facilitator.settle(paymentPayload, paymentRequirements).catch((error: Error) => ({
      success: false,
      errorReason: "unexpected_settle_error",
      errorMessage: error.message,
      transaction: "",
      network,
    }));
    return send(200, settled);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
