import { parseUnits } from "viem";
import { ConfigError, config } from "./index";

export type Address = `0x${string}`;

/** What one link costs and where the money goes, from the configuration. */
export type PaymentSettings = {
  /** Display units of the asset, as configured: "0.50". */
  price: string;
  /** Atomic units, as signed and settled: "500000" for 0.50 of a 6-decimal token. */
  amount: string;
  network: string;
  chainId: number;
  asset: Address;
  assetName: string;
  assetVersion: string;
  decimals: number;
  recipient: Address;
  facilitatorUrl: string;
  secretKey: string;
  /** The MPP realm: the public host of the API. */
  realm: string;
  /** The public address of POST /api/links; x402 clients echo it and it must match. */
  resourceUrl: string;
  docsUrl: string;
};

/** The price in the asset's atomic units; refuses a price finer than the asset can express. */
export function atomicAmount(price: string, decimals: number): string {
  const fractionDigits = price.split(".")[1]?.length ?? 0;
  if (fractionDigits > decimals) {
    throw new ConfigError(
      `Configuration error: LINK_PRICE has more decimal places than PAYMENT_ASSET_DECIMALS (${decimals}) (got "${price}").`,
    );
  }
  return parseUnits(price, decimals).toString();
}

/**
 * The payment settings, or null when this deployment cannot take payments: a challenge must
 * never name a recipient or secret that is not there.
 */
export function configuredPaymentSettings(): PaymentSettings | null {
  const settings = config();
  if (!settings.PAYMENT_RECIPIENT || !settings.MPP_SECRET_KEY) return null;
  const base = settings.BASE_URL;
  return {
    price: settings.LINK_PRICE,
    amount: atomicAmount(settings.LINK_PRICE, settings.PAYMENT_ASSET_DECIMALS),
    network: settings.PAYMENT_NETWORK,
    chainId: Number(settings.PAYMENT_NETWORK.split(":")[1]),
    asset: settings.PAYMENT_ASSET as Address,
    assetName: settings.PAYMENT_ASSET_NAME,
    assetVersion: settings.PAYMENT_ASSET_VERSION,
    decimals: settings.PAYMENT_ASSET_DECIMALS,
    recipient: settings.PAYMENT_RECIPIENT as Address,
    facilitatorUrl: settings.X402_FACILITATOR_URL,
    secretKey: settings.MPP_SECRET_KEY,
    realm: new URL(base).host,
    resourceUrl: `${base}/api/links`,
    docsUrl: `${base}/docs/payments`,
  };
}
