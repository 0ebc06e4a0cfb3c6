import { AsyncLocalStorage } from "node:async_hooks";

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

/**
 * A value is created outside any request's context (see requestContext): the timers, connections
 * and listeners a process-wide value starts would otherwise carry the request that happened to
 * create it, and every line they log would name that request's id and route.
 */
export function processSingleton<Value>(name: string, create: () => Value): ProcessSingleton<Value> {
  const key = Symbol.for(`permalink.${name}`);
  const holder = globalThis as unknown as Record<symbol, Value | undefined>;
  return {
    get: () => (holder[key] ??= requestContext().exit(create)),
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

/** What a request adds to every line logged while it is served (lib/log). */
export type RequestContext = { reqId: string; route: string; method: string };

const REQUEST_CONTEXT = Symbol.for("permalink.logRequestContext");

/** The process's one store of the request being served: Next's bundles may each load this module. */
export function requestContext(): AsyncLocalStorage<RequestContext> {
  const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<RequestContext> | undefined>;
  return (holder[REQUEST_CONTEXT] ??= new AsyncLocalStorage<RequestContext>());
}
