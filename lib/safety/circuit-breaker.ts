export type CircuitBreakerOptions = {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one trial call is let through. */
  cooldownMs: number;
  now: () => number;
};

export type CircuitBreaker = {
  /** False while the circuit is open, or half-open with its trial call still running. */
  tryAcquire(): boolean;
  recordSuccess(): void;
  recordFailure(): void;
};

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  let consecutiveFailures = 0;
  let openUntil = 0;
  let trialInFlight = false;
  const isTripped = () => consecutiveFailures >= options.failureThreshold;

  return {
    tryAcquire() {
      if (!isTripped()) return true;
      if (options.now() < openUntil || trialInFlight) return false;
      trialInFlight = true;
      return true;
    },
    recordSuccess() {
      consecutiveFailures = 0;
      trialInFlight = false;
    },
    recordFailure() {
      consecutiveFailures += 1;
      trialInFlight = false;
      if (isTripped()) openUntil = options.now() + options.cooldownMs;
    },
  };
}
