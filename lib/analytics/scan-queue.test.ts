import { describe, expect, it } from "vitest";
import { ScanQueue, scansIn } from "./scan-queue";

const sameLetter = (last: string, next: string) => last === next;

describe("ScanQueue", () => {
  it("folds a repeat of the newest waiting event into its count, and counts events and scans apart", () => {
    const queue = new ScanQueue<string>(sameLetter);
    for (const event of ["a", "a", "b", "a", "a", "a"]) queue.push(event);
    expect([queue.waitingEvents, queue.held(), queue.scans()]).toEqual([3, 3, 6]);
    const batch = queue.cut(Infinity, 10)!;
    expect(batch.events).toEqual(["a", "b", "a"]);
    expect(batch.counts).toEqual([2, 1, 3]);
    expect(scansIn(batch)).toBe(6);
    expect([queue.waitingEvents, queue.scans()]).toEqual([0, 0]);
  });

  it("cuts the oldest events, at most the limit and the size, each batch under a new id", () => {
    const queue = new ScanQueue<string>();
    for (let i = 0; i < 7; i++) queue.push(`e${i}`);
    const first = queue.cut(5, 3)!;
    const second = queue.cut(2, 3)!;
    expect([first.events, second.events]).toEqual([
      ["e0", "e1", "e2"],
      ["e3", "e4"],
    ]);
    expect(first.id).not.toBe(second.id);
    expect(queue.cut(0, 3)).toBeNull();
    expect(queue.waitingEvents).toBe(2);
    queue.cut(Infinity, 3);
    expect(queue.cut(Infinity, 3)).toBeNull();
  });

  it("keeps failed batches whole under their ids, a written one before the others and a parked one after them", () => {
    const queue = new ScanQueue<string>();
    for (let i = 0; i < 6; i++) queue.push(`e${i}`);
    const [a, b, c] = [queue.cut(2, 2)!, queue.cut(2, 2)!, queue.cut(2, 2)!];
    queue.keepFailed(b, "newest");
    queue.keepFailed(c, "newest");
    queue.keepFailed(a, "oldest");
    expect([queue.held(), queue.scans(), queue.hasFailed]).toEqual([6, 6, true]);
    expect([queue.takeFailed(), queue.takeFailed(), queue.takeFailed(), queue.takeFailed()]).toEqual([a, b, c, undefined]);
    expect([queue.held(), queue.scans(), queue.hasFailed]).toEqual([0, 0, false]);
  });

  it("drops the oldest first, failed batches whole before waiting events, and says how many scans went", () => {
    const queue = new ScanQueue<string>(sameLetter);
    for (const event of ["x", "x", "y"]) queue.push(event);
    queue.keepFailed(queue.cut(Infinity, 10)!, "oldest");
    for (const event of ["p", "q", "q", "q", "r"]) queue.push(event);
    // The failed batch (2 events, 3 scans), then "p" and the "q" that stands for 3 scans.
    expect(queue.dropOldest(4)).toBe(3 + 1 + 3);
    expect([queue.held(), queue.scans(), queue.hasFailed]).toEqual([1, 1, false]);
    expect(queue.cut(Infinity, 10)!.events).toEqual(["r"]);
  });
});
