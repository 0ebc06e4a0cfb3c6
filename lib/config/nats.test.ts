import { describe, expect, it } from "vitest";
import { natsServers } from "./nats";

describe("natsServers", () => {
  it("takes the credentials out of the URLs nats.js would drop them from", () => {
    expect(natsServers("nats://scans:s%40cret@127.0.0.1:4222, nats://scans:s%40cret@[::1]:4223")).toEqual({
      servers: ["127.0.0.1:4222", "[::1]:4223"],
      tls: false,
      credentials: { user: "scans", pass: "s@cret" },
    });
    expect(natsServers("tls://t0ken@nats.example:4222,nats://nats2.example:4222")).toEqual({
      servers: ["nats.example:4222", "nats2.example:4222"],
      tls: true,
      credentials: { token: "t0ken" },
    });
    expect(natsServers("nats://127.0.0.1:4222").credentials).toBeNull();
  });
});
