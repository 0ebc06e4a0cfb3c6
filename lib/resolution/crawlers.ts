import { isbot } from "isbot";

/**
 * The link-preview crawlers, by the names their user agents carry: Slack's unfurler
 * (Slackbot-LinkExpanding), X's Twitterbot, Facebook's facebookexternalhit and Facebot,
 * LinkedInBot, Discordbot, WhatsApp, TelegramBot, and iMessage, whose previews are fetched as
 * "facebookexternalhit/1.1 Facebot Twitterbot/1.0". People's in-app browsers name their app
 * differently (FBAN, LinkedInApp, "Twitter for iPhone"), so none of them is mistaken for one.
 */
export const PREVIEW_CRAWLERS: readonly string[] = [
  "slackbot",
  "twitterbot",
  "facebookexternalhit",
  "facebot",
  "linkedinbot",
  "discordbot",
  "whatsapp",
  "telegrambot",
];

const NAMED = new RegExp(PREVIEW_CRAWLERS.join("|"), "i");

/**
 * Whether a visit comes from a link-preview crawler: a named one that isbot also recognises as a
 * bot (isbot's own list keeps a person's browser that happens to carry a name from being one).
 * Asked only for links with a preview: the others pay nothing for it.
 */
export function isPreviewCrawler(userAgent: string | null): boolean {
  return userAgent !== null && NAMED.test(userAgent) && isbot(userAgent);
}
