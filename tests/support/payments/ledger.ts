import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  type Address,
  type Hex,
  decodeFunctionData,
  encodeFunctionResult,
  getAddress,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
  verifyTypedData,
} from "viem";

const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11";

const TOKEN_ABI = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, " +
    "uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, " +
    "uint256 validBefore, bytes32 nonce, bytes signature)",
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function name() view returns (string)",
  "function version() view returns (string)",
]);

const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export type Transfer = { from: Address; to: Address; value: bigint; nonce: Hex; transaction: Hex };

type Authorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
};

/**
 * An EIP-3009 token in memory with FiatToken (USDC) semantics: balances, single-use nonces per
 * payer, the validAfter/validBefore window and signature recovery over the EIP-712 domain, with
 * FiatToken's revert messages. It sits behind the x402 facilitator's signer interface, the only
 * piece of the payment path that is not the real thing: it stands in for the chain.
 */
export class Eip3009Ledger {
  readonly transfers: Transfer[] = [];
  private readonly balances = new Map<Address, bigint>();
  private readonly usedNonces = new Set<string>();
  /** Runs inside a settlement, after its checks and before the transfer lands: a test's "meanwhile". */
  duringSettlement: (() => Promise<void>) | undefined;

  constructor(
    readonly token: { address: Address; chainId: number; name: string; version: string },
    private readonly facilitator: Address,
  ) {}

  fund(account: Address, amount: bigint): void {
    this.balances.set(getAddress(account), this.balanceOf(account) + amount);
  }

  balanceOf(account: Address): bigint {
    return this.balances.get(getAddress(account)) ?? 0n;
  }

  /** The facilitator's view of the chain: reads and eth_call simulation, writes, receipts, code. */
  signer(): FacilitatorEvmSigner {
    return {
      getAddresses: () => [this.facilitator],
      getCode: async ({ address }) => (sameAddress(address, this.token.address) ? "0x6080" : "0x"),
      readContract: async ({ address, functionName, args }) => this.read(address, functionName, args ?? []),
      writeContract: async ({ address, functionName, args }) => {
        if (!sameAddress(address, this.token.address) || functionName !== "transferWithAuthorization")
          throw new Error(`unexpected write ${functionName}`);
        return this.transferWithAuthorization(await this.authorizationFrom(args));
      },
      waitForTransactionReceipt: async ({ hash }) => ({
        status: this.transfers.some((transfer) => transfer.transaction === hash) ? "success" : "reverted",
      }),
      verifyTypedData: async (parameters) => verifyTypedData(parameters as Parameters<typeof verifyTypedData>[0]),
      sendTransaction: async () => {
        throw new Error("The ledger takes no raw transactions.");
      },
    } as FacilitatorEvmSigner;
  }

  private async read(address: string, functionName: string, args: readonly unknown[]): Promise<unknown> {
    if (sameAddress(address, MULTICALL3) && functionName === "tryAggregate")
      return this.tryAggregate(args[1] as { target: Address; callData: Hex }[]);
    if (!sameAddress(address, this.token.address)) throw new Error(`call to ${address}: no contract there`);
    switch (functionName) {
      case "transferWithAuthorization":
        return this.check(await this.authorizationFrom(args));
      case "balanceOf":
        return this.balanceOf(args[0] as Address);
      case "authorizationState":
        return this.usedNonces.has(nonceKey(args[0] as Address, args[1] as Hex));
      case "name":
        return this.token.name;
      case "version":
        return this.token.version;
      default:
        throw new Error(`the token has no function ${functionName}`);
    }
  }

  private async tryAggregate(calls: { target: Address; callData: Hex }[]) {
    return Promise.all(
      calls.map(async ({ target, callData }) => {
        try {
          const { functionName, args } = decodeFunctionData({ abi: TOKEN_ABI, data: callData });
          const result = await this.read(target, functionName, args ?? []);
          const returnData =
            result === undefined ? "0x" : encodeFunctionResult({ abi: TOKEN_ABI, functionName, result } as never);
          return { success: true, returnData };
        } catch {
          return { success: false, returnData: "0x" };
        }
      }),
    );
  }

  /** Checks first, then moves the money with no await in between, so two settlements of one nonce cannot both pass. */
  private async transferWithAuthorization(authorization: Authorization): Promise<Hex> {
    this.check(authorization);
    await this.duringSettlement?.();
    this.check(authorization);
    this.usedNonces.add(nonceKey(authorization.from, authorization.nonce));
    this.balances.set(authorization.from, this.balanceOf(authorization.from) - authorization.value);
    this.balances.set(authorization.to, this.balanceOf(authorization.to) + authorization.value);
    const transaction = keccak256(`${authorization.from}${authorization.nonce.slice(2)}` as Hex);
    this.transfers.push({
      from: authorization.from,
      to: authorization.to,
      value: authorization.value,
      nonce: authorization.nonce,
      transaction,
    });
    return transaction;
  }

  private check(authorization: Authorization): void {
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (now <= authorization.validAfter) throw new Error("FiatTokenV2: authorization is not yet valid");
    if (now >= authorization.validBefore) throw new Error("FiatTokenV2: authorization is expired");
    if (this.usedNonces.has(nonceKey(authorization.from, authorization.nonce)))
      throw new Error("FiatTokenV2: authorization is used or canceled");
    if (this.balanceOf(authorization.from) < authorization.value) throw new Error("ERC20: transfer amount exceeds balance");
  }

  /** Decodes transferWithAuthorization's arguments and proves the signer is `from`, as FiatToken does. */
  private async authorizationFrom(args: readonly unknown[]): Promise<Authorization> {
    const [from, to, value, validAfter, validBefore, nonce] = args as [Address, Address, bigint, bigint, bigint, Hex];
    const signature =
      args.length === 7 ? (args[6] as Hex) : signatureFromParts(args[6] as bigint | number, args[7] as Hex, args[8] as Hex);
    const signer = await recoverTypedDataAddress({
      domain: {
        name: this.token.name,
        version: this.token.version,
        chainId: this.token.chainId,
        verifyingContract: this.token.address,
      },
      types: AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message: { from, to, value, validAfter, validBefore, nonce },
      signature,
    });
    if (!sameAddress(signer, from)) throw new Error("FiatTokenV2: invalid signature");
    return { from: getAddress(from), to: getAddress(to), value, validAfter, validBefore, nonce, signature };
  }
}

function signatureFromParts(v: bigint | number, r: Hex, s: Hex): Hex {
  return typeof v === "bigint" ? serializeSignature({ r, s, v }) : serializeSignature({ r, s, yParity: v });
}

function nonceKey(from: Address, nonce: Hex): string {
  return `${getAddress(from)}:${nonce.toLowerCase()}`;
}

function sameAddress(left: string, right: string): boolean {
  return left.toLowerCase() === right.toLowerCase();
}
