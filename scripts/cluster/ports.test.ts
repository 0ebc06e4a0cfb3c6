import { describe, expect, it } from "vitest";
import { clusterSettings } from "./ports";

describe("npm run cluster's ports", () => {
  it("are each settable by a flag, for a fault drill; the rest are left to free ports", () => {
    const args = ["--port", "8000", "--instance-ports", "8001,8002", "--instances", "2", "--primary-port", "8010"];
    const more = ["--replica-port", "8011", "--redis-port", "8012", "--nats-ports", "8020,8021,8022"];
    expect(clusterSettings([...args, ...more, "--nats-route-ports", "8030,8031,8032"], {})).toEqual({
      instances: 2,
      ports: {
        balancer: 8000,
        instances: [8001, 8002],
        primary: 8010,
        replica: 8011,
        redis: 8012,
        natsClients: [8020, 8021, 8022],
        natsRoutes: [8030, 8031, 8032],
      },
    });
    expect(clusterSettings([], { PORT: "4000", CLUSTER_INSTANCES: "5" })).toMatchObject({
      instances: 5,
      ports: { balancer: 4000, instances: undefined, redis: undefined },
    });
  });

  it("are refused with a sentence when wrong", () => {
    expect(() => clusterSettings(["--instance-ports", "8001,8002"], {})).toThrow(
      "--instance-ports must name 3 ports, comma-separated (got 2).",
    );
    expect(() => clusterSettings(["--redis-port", "70000"], {})).toThrow(
      '--redis-port must be a whole number from 1 to 65535 (got "70000").',
    );
    expect(() => clusterSettings(["--port", "8000", "--redis-port", "8000"], {})).toThrow(
      "Port 8000 is given to two parts of the cluster.",
    );
    expect(() => clusterSettings(["--haproxy-port", "1"], {})).toThrow(/Unknown option '--haproxy-port'.*Flags: --instances/);
  });
});
