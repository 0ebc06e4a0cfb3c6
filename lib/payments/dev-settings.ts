import { config, settleConfig } from "@/lib/config";
import { readOrCreateDevValue } from "@/lib/config/dev-values";
import { atomicAmount } from "@/lib/config/payments";
import { log } from "@/lib/log";
import { randomBytes } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/**
 * Checks the price against the asset at start, and outside production fills in what machine
 * payments need: an MPP secret, and a recipient wallet whose key stays in the data folder (so
 * testnet payments land somewhere the developer controls). In production, missing values
 * switch machine payments off (503) instead.
 */
export async function ensurePaymentSettings(): Promise<void> {
  const { LINK_PRICE, PAYMENT_ASSET_DECIMALS, NODE_ENV, MPP_SECRET_KEY, PAYMENT_RECIPIENT, DATA_DIR } = config();
  atomicAmount(LINK_PRICE, PAYMENT_ASSET_DECIMALS);
  if (NODE_ENV === "production") {
    if (!MPP_SECRET_KEY || !PAYMENT_RECIPIENT)
      log().warn("Machine payments are off: set MPP_SECRET_KEY and PAYMENT_RECIPIENT to take them.");
    return;
  }
  if (!MPP_SECRET_KEY)
    settleConfig({ MPP_SECRET_KEY: await readOrCreateDevValue("mpp-secret", () => randomBytes(32).toString("base64url")) });
  if (!PAYMENT_RECIPIENT) {
    const key = await readOrCreateDevValue("payment-recipient-key", generatePrivateKey);
    const recipient = privateKeyToAccount(key as `0x${string}`).address;
    settleConfig({ PAYMENT_RECIPIENT: recipient });
    log().info(
      { recipient, keyFile: `${DATA_DIR}/payment-recipient-key` },
      "machine payments go to the development wallet; set PAYMENT_RECIPIENT to use your own",
    );
  }
}
