import { configuredPaymentSettings, type PaymentSettings } from "@/lib/config/payments";
import { machinePaymentsOff } from "@/lib/http/payment-required";

/** The payment settings, or 503 when this deployment takes no machine payments. */
export function paymentSettings(): PaymentSettings {
  const settings = configuredPaymentSettings();
  if (!settings) throw machinePaymentsOff();
  return settings;
}
