import { afterEach, describe, expect, it, vi } from "vitest";
import { type Overflow, type ParkedWrite, PARKED_CHECK_INTERVAL_MS, PARKED_RETRY_MS, ParkedBatchPoller } from "./parked-batches";

/** An inbox of parked batches (their scans), written oldest first; `failNext` fails that many writes. */
function inbox(batches: number[]) {
  const notices: string[] = [];
  let failNext = 0;
  let writes = 0;
  const overflow: Overflow<string> = {
    async writeParked(): Promise<ParkedWrite> {
      writes++;
      if (failNext > 0) {
        failNext--;
        throw new Error("database unavailable");
      }
      const scans = batches.shift();
      return scans === undefined ? { taken: false } : { taken: true, written: scans };
    },
    notice: (message, state) => notices.push(`${state}: ${message}`),
  };
  return { overflow, notices, writes: () => writes, fail: (times: number) => (failNext = times) };
}

/** One pass that writes every parked batch it may, counting nothing. */
const writeAll = (poller: ParkedBatchPoller<string>) =>
  poller.writeWhile(
    () => true,
    () => undefined,
  );

afterEach(() => {
  vi.useRealTimers();
});

describe("ParkedBatchPoller", () => {
  it("writes parked batches oldest first while asked to, and counts each batch's scans", async () => {
    const parked = inbox([3, 4, 5]);
    const poller = new ParkedBatchPoller(parked.overflow, () => undefined);
    const counted: number[] = [];
    let budget = 2;
    await poller.writeWhile(
      () => budget-- > 0,
      (scans) => counted.push(scans),
    );
    expect(counted).toEqual([3, 4]);
    await poller.writeWhile(
      () => true,
      (scans) => counted.push(scans),
    );
    expect(counted).toEqual([3, 4, 5]);
  });

  it("looks again only after the check interval once none is left, and at once after a batch was parked here", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const parked = inbox([]);
    const poller = new ParkedBatchPoller(parked.overflow, () => undefined);
    await writeAll(poller);
    await writeAll(poller);
    expect(parked.writes()).toBe(1);
    vi.setSystemTime(Date.now() + PARKED_CHECK_INTERVAL_MS);
    await writeAll(poller);
    expect(parked.writes()).toBe(2);
    poller.parked(10);
    await writeAll(poller);
    expect(parked.writes()).toBe(3);
  });

  it("after a failed write logs once, waits the retry time even when batches are parked meanwhile, then writes on", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const parked = inbox([2, 2]);
    const logged: string[] = [];
    const poller = new ParkedBatchPoller(parked.overflow, (message) => logged.push(message));
    parked.fail(2);
    await writeAll(poller);
    poller.parked(0);
    await writeAll(poller);
    expect(parked.writes()).toBe(1);
    vi.setSystemTime(Date.now() + PARKED_RETRY_MS);
    await writeAll(poller);
    vi.setSystemTime(Date.now() + PARKED_RETRY_MS);
    const counted: number[] = [];
    await poller.writeWhile(
      () => true,
      (scans) => counted.push(scans),
    );
    expect(counted).toEqual([2, 2]);
    expect(logged).toEqual([`Writing parked scans failed; they stay parked and are retried every ${PARKED_RETRY_MS / 1000} s.`]);
  });

  it("tells the operator once that parking began and once that every parked scan is written", async () => {
    const parked = inbox([1]);
    const poller = new ParkedBatchPoller(parked.overflow, () => undefined);
    poller.parked(40);
    poller.parked(30);
    await writeAll(poller);
    await writeAll(poller);
    expect(parked.notices).toHaveLength(2);
    expect(parked.notices[0]).toMatch(/^parking: The scan writer is behind the visits \(40 scans waiting\)/);
    expect(parked.notices[1]).toMatch(/^caught up: The scan writer has caught up: every scan parked since \S+ is written\.$/);
  });
});
