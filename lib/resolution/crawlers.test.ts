import { describe, expect, it } from "vitest";
import { isPreviewCrawler } from "./crawlers";

describe("link-preview crawlers", () => {
  it.each([
    ["Slack", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"],
    ["X", "Twitterbot/1.0"],
    ["Facebook", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
    ["iMessage", "facebookexternalhit/1.1 Facebot Twitterbot/1.0"],
    ["LinkedIn", "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"],
    ["Discord", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"],
    ["WhatsApp", "WhatsApp/2.23.20.0 A"],
    ["Telegram", "TelegramBot (like TwitterBot)"],
  ])("recognises %s's", (_name, userAgent) => {
    expect(isPreviewCrawler(userAgent)).toBe(true);
  });

  it.each([
    [
      "a desktop browser",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    ],
    [
      "Facebook's in-app browser",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0]",
    ],
    ["a search engine", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
    ["no user agent", null],
  ])("leaves %s to the redirect", (_name, userAgent) => {
    expect(isPreviewCrawler(userAgent)).toBe(false);
  });
});
