import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { repeat } from "./schedule";

describe("repeat", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs the first pass after firstAfterMs, then every interval, until stopped", async () => {
    const job = vi.fn(async () => undefined);
    const schedule = repeat("counting", job, 1_000, 100);
    await vi.advanceTimersByTimeAsync(99);
    expect(job).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(job).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(job).toHaveBeenCalledTimes(3);
    schedule.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(job).toHaveBeenCalledTimes(3);
  });

  it("schedules nothing for an interval of 0 (a setting turned off)", async () => {
    const job = vi.fn(async () => undefined);
    repeat("turned off", job, 0).stop();
    repeat("turned off, never stopped", job, 0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(job).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts no pass while the last one still runs, and goes on after one fails", async () => {
    let finish: () => void = () => undefined;
    const job = vi
      .fn<() => Promise<void>>()
      .mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)))
      .mockRejectedValueOnce(new Error("database away"))
      .mockResolvedValue(undefined);
    const schedule = repeat("a slow job", job, 1_000);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(job).toHaveBeenCalledTimes(1);
    finish();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(job).toHaveBeenCalledTimes(3);
    schedule.stop();
  });
});
