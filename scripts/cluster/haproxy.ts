import { stopChild } from "@/server/child-process";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { waitForPort } from "./nats";

export type LoadBalancer = { url: string; stop(): Promise<void> };

/**
 * HAProxy (Debian's `haproxy`) on `port`, spreading requests over `backends` (host:port) round
 * robin. Its health check asks each instance's readiness endpoint every second and takes an
 * instance out after two failures (no answer within 3 s, or an unexpected status); a connection an
 * instance refuses or drops is retried on another instance, so a crashed instance costs visitors
 * nothing but the requests it was answering.
 */
export async function startLoadBalancer(dir: string, port: number, backends: string[]): Promise<LoadBalancer> {
  const configFile = path.join(dir, "haproxy.cfg");
  await writeFile(configFile, configFor(port, backends));
  const child = spawn("haproxy", ["-f", configFile, "-db"], { stdio: ["ignore", "ignore", "inherit"] });
  await waitForPort(port, child);
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

function configFor(port: number, backends: string[]): string {
  return [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 30s",
    // Headers within 10 s, as the instances want them: a slowloris holds HAProxy's connection, not an instance's.
    "  timeout http-request 10s",
    "  timeout server 30s",
    "  retries 3",
    // Every retry goes to another instance, and a connection refused or closed before any answer is retried.
    "  option redispatch 1",
    "  retry-on conn-failure empty-response",
    "  option forwardfor",
    "frontend front",
    `  bind 127.0.0.1:${port}`,
    // HAProxy's own anti-DoS example: the body's first part is read before an instance is picked (so a
    // trickled body holds no instance's socket until it arrives), and one client address holds at
    // most 200 connections at once.
    "  option http-buffer-request",
    "  stick-table type ip size 100k expire 30s store conn_cur",
    "  tcp-request connection track-sc0 src",
    "  tcp-request connection reject if { sc0_conn_cur gt 200 }",
    "  default_backend instances",
    "backend instances",
    "  balance roundrobin",
    "  option httpchk GET /api/health",
    // 503 is an instance saying the database does not answer; every instance shares that database,
    // and each still answers its warm links from memory, so only an instance that does not answer
    // at all is taken out: taking them all out would turn a database outage into a whole outage.
    "  http-check expect rstatus ^(200|503)$",
    // A check may take up to 3 s to answer: without this its timeout is `inter` (1 s), and on a loaded
    // machine (CI: the suite's other files beside the cluster) every instance missed it twice at once,
    // so HAProxy took them all out and answered 503 to visits the instances would have served.
    "  timeout check 3s",
    "  default-server inter 1s fall 2 rise 2",
    ...backends.map((backend, index) => `  server instance${index + 1} ${backend} check`),
    "",
  ].join("\n");
}
