import { claimResponseSchema } from "@/lib/auth/schemas";
import { defineOperation, failure, ok } from "@/lib/http/operation";
import { recoverKeyBody, recoveryNonceSchema } from "./schemas";

export const getRecoveryNonce = defineOperation({
  method: "get",
  path: "/api/machine-accounts/nonce",
  auth: "public",
  operationId: "getRecoveryNonce",
  summary: "Get a nonce to recover a machine account's key",
  description:
    "No credentials needed. A single-use nonce, valid for ten minutes, with the domain, URI, chain " +
    "ID and version the Sign-In-with-Ethereum (EIP-4361) message must carry; see " +
    "recoverMachineAccountKey and /docs/payments.",
  tag: "API keys",
  write: true,
  responses: {
    200: ok("The nonce and the message's fields.", recoveryNonceSchema),
  },
});

export const recoverMachineAccountKey = defineOperation({
  method: "post",
  path: "/api/machine-accounts/key",
  auth: "public",
  operationId: "recoverMachineAccountKey",
  summary: "Recover a machine account's key with its wallet",
  description:
    "No credentials needed: the wallet that paid for the account's links proves itself by signing an " +
    "EIP-4361 message (personal_sign) whose domain and URI are this service, whose chain ID is the " +
    "payment network's, and whose nonce came from getRecoveryNonce. The account's key is replaced: " +
    "the new raw key is returned once and the old key stops authenticating at once.",
  tag: "API keys",
  write: true,
  body: recoverKeyBody,
  responses: {
    200: ok("The new raw key, shown once.", claimResponseSchema),
    400: failure(
      "The body failed validation, or the message is not EIP-4361, or it names another domain, URI origin or chain, or is not valid yet.",
    ),
    401: failure("The signature was not made by the message's address, or the nonce is unknown or already used."),
    404: failure("No machine account belongs to the message's address on the payment network."),
    409: failure("Another key was issued for the account at the same moment."),
    410: failure("The message or its nonce has expired."),
  },
});
