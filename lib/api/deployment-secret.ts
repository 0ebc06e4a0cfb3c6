import { constantTimeEqual } from "@/lib/auth/api-keys";
import { config } from "@/lib/config";
import { DomainError, unauthenticated } from "@/lib/http/errors";

/** The deployment's own secrets, each switching its operations off (503) while unset. */
const SECRETS = {
  operator: { variable: "OPERATOR_TOKEN", switchedOff: "Operator actions are", name: "the operator token" },
  cron: { variable: "CRON_SECRET", switchedOff: "Scheduled jobs are", name: "the deployment's cron secret" },
} as const;

export type DeploymentSecret = keyof typeof SECRETS;

/** Requires `Authorization: Bearer <secret>`, compared in constant time; 503 when the deployment never set the secret. */
export function requireDeploymentSecret(request: Request, which: DeploymentSecret): void {
  const { variable, switchedOff, name } = SECRETS[which];
  if (!config()[variable])
    throw new DomainError("not_configured", `${switchedOff} not configured on this deployment: ${variable} is not set.`);
  if (!holdsDeploymentSecret(request.headers.get("authorization"), which)) {
    throw unauthenticated(`Send ${name} as Authorization: Bearer <${variable}>.`);
  }
}

/** Whether an Authorization header's value is `Bearer <secret>`, compared in constant time; never while the secret is unset. */
export function holdsDeploymentSecret(authorization: string | null | undefined, which: DeploymentSecret): boolean {
  const secret = config()[SECRETS[which].variable];
  return Boolean(secret) && constantTimeEqual(authorization ?? "", `Bearer ${secret}`);
}
