import { processSingleton } from "@/lib/process-singleton";
import Bowser from "bowser";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";

export type AgentFacts = { bot: boolean; device: string | null; browser: string | null; os: string | null };

/**
 * Link-preview fetchers, named even where isbot already knows them: a preview is never a person
 * scanning, whatever isbot's list does next.
 */
const PREVIEW_FETCHERS = new RegExp(
  [
    ...["slackbot", "twitterbot", "facebookexternalhit", "facebookcatalog", "whatsapp", "discordbot", "telegrambot"],
    ...["linkedinbot", "skypeuripreview", "applebot", "redditbot", "embedly", "iframely"],
  ].join("|"),
  "i",
);

/** Bowser's platform types we report; anything else (or nothing) is `unknown`. */
export const DEVICE_CLASSES: ReadonlySet<string> = new Set(["desktop", "mobile", "tablet", "tv"]);

/**
 * The browser and OS names the parser knows. For an agent it does not recognise it falls back to
 * the agent's first token, which the client chose freely (a spreadsheet formula, a slur): that is
 * stored and shown as `other`.
 */
export const KNOWN_BROWSERS: ReadonlySet<string> = new Set(Object.values(Bowser.BROWSER_MAP));
export const KNOWN_SYSTEMS: ReadonlySet<string> = new Set(Object.values(Bowser.OS_MAP));
/** What an agent the parser does not recognise is stored as. */
export const OTHER_AGENT = "other";

/** Busy links see few distinct agents: parsing each once keeps the flush cheap. */
const parsedAgents = processSingleton("parsedAgents", () => new LRUCache<string, AgentFacts>({ max: 5000 }));

const NO_AGENT: AgentFacts = { bot: false, device: null, browser: null, os: null };

/** Device class, browser and OS of a user agent, and whether it is a bot or a preview fetcher. */
export function agentFacts(userAgent: string | null): AgentFacts {
  if (!userAgent) return NO_AGENT;
  let facts = parsedAgents.get().get(userAgent);
  if (!facts) {
    facts = parseAgent(userAgent);
    parsedAgents.get().set(userAgent, facts);
  }
  return facts;
}

function parseAgent(userAgent: string): AgentFacts {
  const bot = isbot(userAgent) || PREVIEW_FETCHERS.test(userAgent);
  if (bot) return { bot, device: null, browser: null, os: null };
  const result = Bowser.parse(userAgent);
  const platform = result.platform.type;
  return {
    bot,
    device: platform && DEVICE_CLASSES.has(platform) ? platform : null,
    browser: known(result.browser.name, KNOWN_BROWSERS),
    os: known(result.os.name, KNOWN_SYSTEMS),
  };
}

function known(name: string | undefined, names: ReadonlySet<string>): string | null {
  if (!name) return null;
  return names.has(name) ? name : OTHER_AGENT;
}
