import { runOperation } from "@/lib/api/pipeline";
import { resetConfig } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { LINK_CHANGES_STREAM } from "@/lib/links/change-feed";
import { invalidationsSent, publishInvalidation } from "@/lib/links/invalidation";
import { forgetSharedStoreClients } from "@/lib/shared-store/clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashStandIn, type UpstashStandIn } from "../support/upstash-stand-in";

let upstash: UpstashStandIn;

beforeAll(async () => {
  upstash = await startUpstashStandIn();
  // Only Upstash's REST API, as on Vercel: other instances hear a change once it is appended to the feed.
  process.env.UPSTASH_REDIS_REST_URL = upstash.url;
  process.env.UPSTASH_REDIS_REST_TOKEN = upstash.token;
  resetConfig();
  forgetSharedStoreClients();
});

afterAll(async () => {
  delete process.env.UPSTASH_REDIS_REST_URL;
  delete process.env.UPSTASH_REDIS_REST_TOKEN;
  resetConfig();
  forgetSharedStoreClients();
  await upstash.close();
});

const appended = () => upstash.redis.xlen(LINK_CHANGES_STREAM);

/** One call through the pipeline whose capability changes a link, then answers with `outcome`. */
function changeThen(slug: string, outcome: () => unknown) {
  return runOperation({
    principal: null,
    request: new Request("http://app.test.example/api/test"),
    operation: { write: false },
    input: () => undefined,
    call: async () => {
      publishInvalidation({ kind: "link", host: null, slug });
      return outcome();
    },
  });
}

describe("the invalidations a call queued, with the change feed", () => {
  it("have reached the feed when the call answers", async () => {
    const before = await appended();
    await changeThen("feed-ok", () => "done");
    expect(invalidationsSent()).toBeUndefined();
    expect(await appended()).toBe(before + 1);
  });

  it("have reached the feed when the capability fails after its change (a domain removed while it was verified: 404)", async () => {
    const before = await appended();
    const failed = await changeThen("feed-failed", () => {
      throw new DomainError("not_found", "No domain with this id in this workspace.");
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DomainError);
    // The door answers the error now: a serverless instance may be frozen as soon as it has.
    expect(invalidationsSent()).toBeUndefined();
    expect(await appended()).toBe(before + 1);
  });
});
