/**
 * One value per process, created on first use and kept on globalThis: the start script, Next's
 * server bundles and the proxy may load a module more than once, and they must share one value.
 */
export type ProcessSingleton<Value> = {
  /** The value, created on first use. */
  get(): Value;
  /** The value if it exists, without creating it. */
  peek(): Value | undefined;
  /** Puts a value in place of the current one. */
  set(value: Value): void;
  /** Forgets the value (the next get() creates a fresh one) and returns it, for the caller to close. */
  reset(): Value | undefined;
};

export function processSingleton<Value>(name: string, create: () => Value): ProcessSingleton<Value> {
  const key = Symbol.for(`permalink.${name}`);
  const holder = globalThis as unknown as Record<symbol, Value | undefined>;
  return {
    get: () => (holder[key] ??= create()),
    peek: () => holder[key],
    set: (value) => {
      holder[key] = value;
    },
    reset: () => {
      const current = holder[key];
      holder[key] = undefined;
      return current;
    },
  };
}
