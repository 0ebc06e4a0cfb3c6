export type Threat = "malware" | "phishing" | "unwanted" | "policy";

export type UnknownReason = "timeout" | "error" | "circuit_open" | "unresolved";

export type Verdict =
  | { status: "clean"; source: string }
  | { status: "malicious"; source: string; threat: Threat; detail: string }
  | { status: "unknown"; source: string; reason: UnknownReason };

export interface SafetyChecker {
  readonly name: string;
  check(url: string, signal?: AbortSignal): Promise<Verdict>;
}
