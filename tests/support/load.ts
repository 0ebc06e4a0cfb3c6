import { rawRequest } from "./http";

/** Browsers of the four families analytics tells apart. */
export const BROWSER_AGENTS = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:133.0) Gecko/20100101 Firefox/133.0",
];

export type Load = { redirects: number; other: number; stop(): Promise<void> };

/**
 * Visits from `loops` clients at once, each a link and a browser at random, until stopped; with
 * `perSecond`, each client pauses between visits so that all of them make at most that many a second.
 */
export function visitContinuously(url: string, host: string, slugs: string[], loops = 8, perSecond?: number): Load {
  const pauseMs = perSecond ? (loops * 1000) / perSecond : 0;
  let running = true;
  const load: Load = { redirects: 0, other: 0, stop: async () => undefined };
  const clients = Array.from({ length: loops }, async () => {
    while (running) {
      const slug = slugs[Math.floor(Math.random() * slugs.length)]!;
      const agent = BROWSER_AGENTS[Math.floor(Math.random() * BROWSER_AGENTS.length)]!;
      const answer = await rawRequest(url, `/${slug}`, { host, headers: { "user-agent": agent } }).catch(() => null);
      if (answer && answer.status >= 300 && answer.status < 400) load.redirects++;
      else if (running) load.other++;
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });
  load.stop = async () => {
    running = false;
    await Promise.all(clients);
  };
  return load;
}
