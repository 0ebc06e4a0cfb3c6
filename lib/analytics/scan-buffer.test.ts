import { describe, expect, it, vi } from "vitest";
import type { Overflow } from "./parked-batches";
import { DEFAULT_LIMITS, droppedSinceStartIn, ScanBuffer, ShardedScanBuffer } from "./scan-buffer";
import type { ScanBatch } from "./scan-queue";
import { sameScan } from "./scans";
import type { CapturedScan } from "./types";

function recordingWriter(options: { failFirst?: number } = {}) {
  const batches: ScanBatch<string>[] = [];
  let failures = options.failFirst ?? 0;
  const write = async (batch: ScanBatch<string>) => {
    if (failures-- > 0) throw new Error("database unavailable");
    batches.push(batch);
  };
  return { batches, write };
}

const quiet = () => undefined;

/** A database that answers each write only when told: releaseNext() lets the next write (made or yet to come) finish. */
function gatedWriter() {
  const batches: ScanBatch<string>[] = [];
  const gates: { opened: Promise<void>; open: () => void }[] = [];
  const gate = (index: number) => {
    while (gates.length <= index) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.push({ opened, open });
    }
    return gates[index]!;
  };
  let writes = 0;
  let released = 0;
  const write = async (batch: ScanBatch<string>) => {
    await gate(writes++).opened;
    batches.push(batch);
  };
  return { batches, write, releaseNext: () => gate(released++).open() };
}

describe("ScanBuffer", () => {
  it("writes nothing until flushed, then everything in order, in batches of at most 5000", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    for (let i = 0; i < 4999; i++) buffer.record(`l${i}`);
    expect(writer.batches).toHaveLength(0);
    await buffer.flush();
    expect(writer.batches.map((batch) => batch.events.length)).toEqual([4999]);
    expect(writer.batches[0]!.events[0]).toBe("l0");
    expect(buffer.stats()).toEqual({ buffered: 0, written: 4999, parked: 0, dropped: 0 });
  });

  it("flushes by itself once 5000 events are waiting, and splits larger backlogs into batches of 5000 with their own ids", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    for (let i = 0; i < 5000; i++) buffer.record(`l${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.batches.map((batch) => batch.events.length)).toEqual([5000]);

    const backlogWriter = recordingWriter();
    const backlog = new ScanBuffer(backlogWriter.write, quiet, { ...DEFAULT_LIMITS, flushAt: Infinity });
    for (let i = 0; i < 12_000; i++) backlog.record(`b${i}`);
    await backlog.flush();
    expect(backlogWriter.batches.map((batch) => batch.events.length)).toEqual([5000, 5000, 2000]);
    expect(new Set(backlogWriter.batches.map((batch) => batch.id)).size).toBe(3);
  });

  it("while writes fail, retries on the timer only and logs once", async () => {
    let attempts = 0;
    const messages: string[] = [];
    const buffer = new ScanBuffer<string>(
      async () => {
        attempts++;
        throw new Error("database unavailable");
      },
      (message) => messages.push(message),
    );
    for (let i = 0; i < 5000; i++) buffer.record(`l${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 200; i++) buffer.record(`more${i}`);
    await buffer.flush();
    expect(attempts).toBe(2);
    expect(messages).toHaveLength(1);
    expect(buffer.stats()).toEqual({ buffered: 5200, written: 0, parked: 0, dropped: 0 });
  });

  it("retries a failed batch under the same id, before anything newer, in order", async () => {
    const writer = recordingWriter({ failFirst: 1 });
    const messages: string[] = [];
    const buffer = new ScanBuffer(writer.write, (message) => messages.push(message));
    buffer.record("first");
    buffer.record("second");
    await buffer.flush();
    expect(writer.batches).toHaveLength(0);
    expect(messages[0]).toMatch(/stay buffered/);
    buffer.record("third");
    await buffer.flush();
    expect(writer.batches.flatMap((batch) => batch.events)).toEqual(["first", "second", "third"]);
    expect(writer.batches).toHaveLength(2);
    expect(writer.batches[0]!.events).toEqual(["first", "second"]);
  });

  it("bounds its memory while writes fail: drops the oldest, counts and logs every drop", async () => {
    const messages: string[] = [];
    const buffer = new ScanBuffer<number>(
      async () => {
        throw new Error("database unavailable");
      },
      (message) => messages.push(message),
      { batchSize: 10, flushAt: 10, maxBuffered: 100, parkAt: Infinity },
    );
    for (let i = 0; i < 250; i++) {
      buffer.record(i);
      await buffer.flush();
    }
    const { buffered, dropped } = buffer.stats();
    expect(buffered).toBeLessThanOrEqual(100);
    expect(buffered + dropped).toBe(250);
    const drops = messages.filter((message) => /dropped the/.test(message));
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.at(-1)).toContain(`${dropped} since this process started`);
    // What the bench reads back from a server's log to name a scenario's drops.
    expect(droppedSinceStartIn(messages.map((msg) => JSON.stringify({ level: 50, msg })).join("\n"))).toBe(dropped);
    expect(droppedSinceStartIn("")).toBe(0);
  });

  it("writes in a run only what was waiting when it began; what arrives meanwhile waits for the next flush", async () => {
    const writer = gatedWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    buffer.record("a1");
    buffer.record("a2");
    const run = buffer.flush();
    buffer.record("b1");
    writer.releaseNext();
    await run;
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a1", "a2"]]);
    expect(buffer.stats()).toEqual({ buffered: 1, written: 2, parked: 0, dropped: 0 });
    writer.releaseNext();
    await buffer.flush();
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a1", "a2"], ["b1"]]);
  });

  it("answers a flush asked during a write with one shared follow-up run, which writes what was recorded before it", async () => {
    const writer = gatedWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    buffer.record("a");
    const first = buffer.flush();
    buffer.record("b");
    const second = buffer.flush();
    buffer.record("c");
    expect(second).not.toBe(first);
    expect(buffer.flush()).toBe(second);
    writer.releaseNext();
    await first;
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a"]]);
    writer.releaseNext();
    await second;
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a"], ["b", "c"]]);
    expect(buffer.stats()).toEqual({ buffered: 0, written: 3, parked: 0, dropped: 0 });
  });

  it("never writes two batches at once, and a flush resolves only once what was recorded before it is written", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const written: string[] = [];
    const buffer = new ScanBuffer<string>(async (batch) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await Promise.resolve();
      written.push(...batch.events);
      inFlight--;
    }, quiet);
    // Scans recorded and flushes asked at every point of a run's life: before, during and in the turns around its end.
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const event = `e${i}`;
      buffer.record(event);
      flushes.push(buffer.flush().then(() => expect(written).toContain(event)));
      if (i % 3 === 0) await Promise.resolve();
    }
    await Promise.all(flushes);
    expect(mostInFlight).toBe(1);
    expect(written).toEqual(Array.from({ length: 300 }, (_, i) => `e${i}`));
  });

  it("shares one write between concurrent flushes", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    buffer.record("only");
    await Promise.all([buffer.flush(), buffer.flush(), buffer.flush()]);
    expect(writer.batches).toHaveLength(1);
  });

  it("writes every scan asked to be flushed within a window in one write, and opens a new window after it", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, quiet);
    const flushed: Promise<void>[] = [];
    for (const event of ["a", "b", "c"]) {
      buffer.record(event);
      flushed.push(buffer.flushWithin(30).then(() => expect(writer.batches.flatMap((b) => b.events)).toContain(event)));
      await Promise.resolve();
    }
    expect(writer.batches).toHaveLength(0);
    await Promise.all(flushed);
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a", "b", "c"]]);

    buffer.record("d");
    await buffer.flushWithin(1);
    expect(writer.batches.map((batch) => batch.events)).toEqual([["a", "b", "c"], ["d"]]);
  });
});

describe("ScanBuffer with identical scans folded", () => {
  type Visit = { link: string; at: number };
  const sameVisit = (last: Visit, next: Visit) => last.link === next.link && last.at === next.at;

  it("counts a repeat of the newest waiting scan on it, and counts everything in scans", async () => {
    const writer = { batches: [] as ScanBatch<Visit>[] };
    const buffer = new ScanBuffer<Visit>(async (batch) => void writer.batches.push(batch), quiet, DEFAULT_LIMITS, sameVisit);
    for (const visit of [
      { link: "a", at: 1 },
      { link: "a", at: 1 },
      { link: "a", at: 1 },
      { link: "b", at: 1 },
      { link: "a", at: 1 },
      { link: "a", at: 2 },
    ])
      buffer.record(visit);
    expect(buffer.stats()).toEqual({ buffered: 6, written: 0, parked: 0, dropped: 0 });
    await buffer.flush();
    expect(writer.batches[0]!.events).toEqual([
      { link: "a", at: 1 },
      { link: "b", at: 1 },
      { link: "a", at: 1 },
      { link: "a", at: 2 },
    ]);
    expect(writer.batches[0]!.counts).toEqual([3, 1, 1, 1]);
    expect(buffer.stats()).toEqual({ buffered: 0, written: 6, parked: 0, dropped: 0 });
  });

  it("bounds events, and counts what it drops in scans", async () => {
    const messages: string[] = [];
    const buffer = new ScanBuffer<Visit>(
      async () => {
        throw new Error("database unavailable");
      },
      (message) => messages.push(message),
      { batchSize: 10, flushAt: Infinity, maxBuffered: 100, parkAt: Infinity },
      sameVisit,
    );
    for (let at = 0; at < 250; at++) for (let repeat = 0; repeat < 3; repeat++) buffer.record({ link: "a", at });
    const { buffered, dropped } = buffer.stats();
    expect(buffered).toBeLessThanOrEqual(300);
    expect(buffered + dropped).toBe(750);
    expect(dropped % 3).toBe(0);
    expect(messages.at(-1)).toContain(`${dropped} since this process started`);
  });
});

/** An overflow that keeps parked batches in order, as scan_inbox does, and writes them through `writer` when asked. */
function parkingLot(writer: { write: (batch: ScanBatch<string>) => Promise<void> }) {
  const parked: ScanBatch<string>[] = [];
  const notices: string[] = [];
  const overflow: Overflow<string> = {
    park: async (batch) => void parked.push(batch),
    writeParked: async () => {
      const oldest = parked[0];
      if (!oldest) return { taken: false };
      await writer.write(oldest);
      parked.shift();
      return { taken: true, written: oldest.counts.reduce((total, count) => total + count, 0) };
    },
    notice: (message) => void notices.push(message),
  };
  return { parked, notices, overflow };
}

const PARKING_LIMITS = { batchSize: 10, flushAt: Infinity, maxBuffered: 100, parkAt: 30 };

describe("ScanBuffer with an overflow", () => {
  it("parks the oldest batches while parkAt events wait, writes the rest, then writes the parked ones oldest first", async () => {
    const writer = recordingWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, lot.overflow);
    for (let i = 0; i < 50; i++) buffer.record(`e${i}`);
    // Parking starts as the 30th waits, and goes on while 30 or more wait: e0–e9, e10–e19, e20–e29.
    await vi.waitFor(() => expect(lot.parked.map((batch) => batch.events[0])).toEqual(["e0", "e10", "e20"]));
    expect(writer.batches).toHaveLength(0);

    await buffer.flush();
    expect(writer.batches.slice(0, 2).map((batch) => batch.events[0])).toEqual(["e30", "e40"]);
    await vi.waitFor(() => expect(writer.batches).toHaveLength(5));
    expect(writer.batches.slice(2).map((batch) => batch.events[0])).toEqual(["e0", "e10", "e20"]);
    expect(lot.parked).toHaveLength(0);
    expect(buffer.stats()).toEqual({ buffered: 0, written: 50, parked: 30, dropped: 0 });
    expect(lot.notices[0]).toMatch(/behind the visits \(40 scans waiting\); parking batches .* No scan is dropped\./);
    expect(lot.notices[1]).toMatch(/has caught up/);
  });

  it("writes what it parks at once, though it found nothing parked a moment before", async () => {
    const writer = recordingWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, lot.overflow);
    buffer.record("before");
    await buffer.flush();
    // The run goes on to look for parked batches, finds none, and would not look again for 30 s.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 40; i++) buffer.record(`e${i}`);
    await vi.waitFor(() => expect(lot.parked.length).toBeGreaterThan(0));

    await buffer.flush();
    await vi.waitFor(() => expect(lot.parked).toHaveLength(0));
    expect(buffer.stats()).toMatchObject({ buffered: 0, written: 41, dropped: 0 });
  });

  it("drops nothing when visits outrun the writer many times over, as long as parking keeps up", async () => {
    const writer = gatedWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, { ...PARKING_LIMITS, flushAt: 10 }, undefined, lot.overflow);
    // The first write never answers until released: everything recorded meanwhile piles up behind it.
    for (let i = 0; i < 1000; i++) {
      buffer.record(`e${i}`);
      if (i % 10 === 0) await Promise.resolve();
    }
    expect(buffer.stats().dropped).toBe(0);
    for (let i = 0; i < 200; i++) writer.releaseNext();
    await buffer.flush();
    await vi.waitFor(() => expect(buffer.stats().written).toBe(1000));
    expect(new Set(writer.batches.flatMap((batch) => batch.events)).size).toBe(1000);
    expect(buffer.stats().dropped).toBe(0);
  });

  it("writes while a draining process has time, then parks what is left before its deadline", async () => {
    const writer = gatedWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, lot.overflow);
    for (let i = 0; i < 25; i++) buffer.record(`e${i}`);

    // The first batch's write never answers: 300 ms before the deadline, the rest is parked instead.
    const unwritten = await buffer.drain(Date.now() + 500, 50, 300);
    expect(unwritten, "the batch whose write had not answered").toBe(10);
    expect(lot.parked.flatMap((batch) => batch.events)).toEqual(Array.from({ length: 15 }, (_, i) => `e${i + 10}`));
    expect(buffer.stats()).toMatchObject({ buffered: 0, parked: 15, dropped: 0 });
  });

  it("gives a batch being written until the deadline when nothing is left to park", async () => {
    const writer = gatedWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, lot.overflow);
    for (let i = 0; i < 10; i++) buffer.record(`e${i}`);
    // Its commit answers 200 ms into the drain: inside the 300 ms kept for parking, which nothing needs.
    setTimeout(() => writer.releaseNext(), 200);

    expect(await buffer.drain(Date.now() + 400, 50, 300)).toBe(0);
    expect(buffer.stats()).toMatchObject({ buffered: 0, written: 10, parked: 0 });
  });

  it("writes a small backlog straight away when it drains with time to spare", async () => {
    const writer = recordingWriter();
    const lot = parkingLot(writer);
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, lot.overflow);
    for (let i = 0; i < 25; i++) buffer.record(`e${i}`);

    expect(await buffer.drain(Date.now() + 2000, 50, 300)).toBe(0);
    expect(writer.batches.flatMap((batch) => batch.events)).toHaveLength(25);
    expect(lot.parked).toHaveLength(0);
  });

  it("waits, when it drains, for a batch being parked, and counts it parked rather than unwritten", async () => {
    const writer = recordingWriter();
    const lot = parkingLot(writer);
    const parking = gatedWriter();
    const buffer = new ScanBuffer(writer.write, quiet, PARKING_LIMITS, undefined, {
      ...lot.overflow,
      park: async (batch) => {
        await parking.write(batch);
        lot.parked.push(batch);
      },
    });
    // The 30th event starts parking e0–e9, whose insert has not answered (the pool is busy) when the process drains.
    for (let i = 0; i < 30; i++) buffer.record(`e${i}`);
    setTimeout(() => parking.releaseNext(), 100);

    const unwritten = await buffer.drain(Date.now() + 2000, 50, 300);
    expect(unwritten).toBe(0);
    expect(lot.parked.flatMap((batch) => batch.events)).toEqual(Array.from({ length: 10 }, (_, i) => `e${i}`));
    expect(buffer.stats()).toMatchObject({ buffered: 0, parked: 10, dropped: 0 });
  });

  it("leaves a parked batch parked when writing it fails, logs it once, and writes it on a run after the retry time", async () => {
    const writer = recordingWriter();
    const parkedWriter = recordingWriter({ failFirst: 1 });
    const lot = parkingLot(parkedWriter);
    const messages: string[] = [];
    const buffer = new ScanBuffer(writer.write, (message) => messages.push(message), PARKING_LIMITS, undefined, lot.overflow);
    for (let i = 0; i < 50; i++) buffer.record(`e${i}`);
    await vi.waitFor(() => expect(lot.parked).toHaveLength(3));

    await buffer.flush();
    await vi.waitFor(() =>
      expect(messages).toContain("Writing parked scans failed; they stay parked and are retried every 5 s."),
    );
    expect(lot.parked).toHaveLength(3);
    await buffer.flush();
    expect(lot.parked, "no second attempt before the retry's time").toHaveLength(3);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 5000);
      await buffer.flush();
      await vi.waitFor(() => expect(lot.parked).toHaveLength(0));
    } finally {
      vi.useRealTimers();
    }
    expect(messages.filter((message) => message.startsWith("Writing parked scans failed"))).toHaveLength(1);
    expect(parkedWriter.batches.flatMap((batch) => batch.events)).toEqual(Array.from({ length: 30 }, (_, i) => `e${i}`));
    expect(buffer.stats()).toEqual({ buffered: 0, written: 50, parked: 30, dropped: 0 });
  });
});

describe("ShardedScanBuffer", () => {
  const SHARD_LIMITS = { batchSize: 10, flushAt: Infinity, maxBuffered: 100, parkAt: Infinity };
  const linkOf = (event: string) => event.split(":")[0]!;
  /** Two buffers split by link, each writing through `write` and logging to `log`. */
  const splitBuffer = (write: (batch: ScanBatch<string>) => Promise<void>, log: (message: string) => void = quiet) =>
    new ShardedScanBuffer<string>(
      2,
      linkOf,
      (limits, drops) => new ScanBuffer(write, log, limits, undefined, undefined, drops),
      SHARD_LIMITS,
    );

  it("writes every scan of a link through one buffer: the buffers' batches at once, each buffer's one at a time", async () => {
    const written: string[] = [];
    const shardsOfLink = new Map<string, Set<number>>();
    const mostInFlightByShard: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const buffer = new ShardedScanBuffer<string>(
      2,
      linkOf,
      (limits, drops) => {
        const shard = mostInFlightByShard.push(0) - 1;
        let shardInFlight = 0;
        const write = async (batch: ScanBatch<string>) => {
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          mostInFlightByShard[shard] = Math.max(mostInFlightByShard[shard]!, ++shardInFlight);
          await new Promise((resolve) => setTimeout(resolve, 2));
          for (const event of batch.events) {
            written.push(event);
            shardsOfLink.set(linkOf(event), (shardsOfLink.get(linkOf(event)) ?? new Set()).add(shard));
          }
          inFlight--;
          shardInFlight--;
        };
        return new ScanBuffer(write, quiet, limits, undefined, undefined, drops);
      },
      { ...SHARD_LIMITS, maxBuffered: 1000 },
    );
    const events = Array.from({ length: 400 }, (_, i) => `link${i % 40}:e${i}`);
    for (const event of events) buffer.record(event);
    await buffer.flush();

    expect([...written].sort()).toEqual([...events].sort());
    expect(mostInFlight).toBe(2);
    expect(mostInFlightByShard).toEqual([1, 1]);
    expect([...shardsOfLink.values()].every((shards) => shards.size === 1)).toBe(true);
    expect(new Set([...shardsOfLink.values()].flatMap((shards) => [...shards]))).toEqual(new Set([0, 1]));
    expect(buffer.stats()).toEqual({ buffered: 0, written: 400, parked: 0, dropped: 0 });
  });

  it("holds at most the limit between its buffers, and logs the process's running total of drops", async () => {
    const messages: string[] = [];
    const buffer = splitBuffer(
      async () => undefined,
      (message) => messages.push(message),
    );
    for (let i = 0; i < 300; i++) buffer.record(`link${i % 40}:e${i}`);

    const { buffered, dropped } = buffer.stats();
    expect(buffered + dropped).toBe(300);
    expect(buffered).toBeLessThanOrEqual(100);
    expect(droppedSinceStartIn(messages.join("\n")), "the last line's total is both buffers'").toBe(dropped);
  });

  it("shares the limit between its buffers: scans of one link, all in one buffer, are held up to the whole limit", async () => {
    const messages: string[] = [];
    // The database is away: every write fails, so everything recorded stays held.
    const buffer = splitBuffer(
      async () => {
        throw new Error("database unavailable");
      },
      (message) => messages.push(message),
    );
    for (let i = 0; i < 100; i++) buffer.record(`hot:e${i}`);
    expect(buffer.stats()).toMatchObject({ buffered: 100, dropped: 0 });

    // Past the limit the oldest tenth goes, from the buffer holding them, however few the other holds.
    buffer.record("cold:e100");
    expect(buffer.stats()).toMatchObject({ buffered: 91, dropped: 10 });
    expect(droppedSinceStartIn(messages.join("\n"))).toBe(10);
  });

  it("tells the operator once that parking began, and once, when every buffer has caught up, that all is written", async () => {
    const parked: ScanBatch<string>[] = [];
    const notices: string[] = [];
    const written: string[] = [];
    const write = async (batch: ScanBatch<string>) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      written.push(...batch.events);
    };
    const buffer = new ShardedScanBuffer<string>(
      2,
      linkOf,
      (limits, drops) => new ScanBuffer(write, quiet, limits, undefined, undefined, drops),
      { ...SHARD_LIMITS, maxBuffered: 1000, parkAt: 30 },
    );
    buffer.useOverflow({
      park: async (batch) => void parked.push(batch),
      // Taken out before it is written, as scan_inbox's row is locked (SKIP LOCKED): the other buffer takes the next.
      writeParked: async () => {
        const oldest = parked.shift();
        if (!oldest) return { taken: false };
        await write(oldest);
        return { taken: true, written: oldest.events.length };
      },
      notice: (message) => void notices.push(message),
    });
    // About a hundred events each: both buffers park.
    for (let i = 0; i < 200; i++) buffer.record(`link${i % 40}:e${i}`);
    await vi.waitFor(() => expect(buffer.stats().parked).toBeGreaterThanOrEqual(140));

    await buffer.flush();
    await vi.waitFor(() => expect(notices.at(-1)).toMatch(/has caught up/));
    expect(written, "every scan, parked ones too, was written when the notice came").toHaveLength(200);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(/behind the visits/);
  });

  it("drains every buffer by the deadline, and says how many scans none could write", async () => {
    const buffer = splitBuffer(async (batch) => {
      if (batch.events.some((event) => event.startsWith("stuck"))) await new Promise(() => undefined);
    });
    for (let i = 0; i < 30; i++) buffer.record(`link${i}:e${i}`);
    buffer.record("stuck:e30");

    // The stuck link's buffer writes its other scans' batch too; only the batch holding the stuck scan stays unwritten.
    const unwritten = await buffer.drain(Date.now() + 300);
    expect(unwritten).toBeGreaterThanOrEqual(1);
    expect(unwritten + buffer.stats().written).toBe(31);
  });
});

describe("sameScan", () => {
  const scan: CapturedScan = {
    linkId: "lnk_1",
    host: "s.example",
    occurredAt: 1_700_000_000_000,
    method: "GET",
    viaQr: false,
    userAgent: "agent",
    referrer: "https://news.example/",
    edgeCountry: "AU",
    forwardedFor: "203.0.113.9",
    peerAddress: "127.0.0.1",
    realIp: "198.51.100.7",
    servedRule: null,
  };
  const changed: CapturedScan = {
    linkId: "lnk_2",
    host: "t.example",
    occurredAt: 1_700_000_000_001,
    method: "HEAD",
    viaQr: true,
    userAgent: "other agent",
    referrer: null,
    edgeCountry: null,
    forwardedFor: "203.0.113.10",
    peerAddress: "127.0.0.2",
    realIp: null,
    servedRule: 3,
  };

  it("holds for equal facts in separate objects", () => {
    expect(sameScan(scan, { ...scan })).toBe(true);
  });

  it.each(Object.keys(changed) as (keyof CapturedScan)[])("fails when %s differs", (key) => {
    expect(sameScan(scan, { ...scan, [key]: changed[key] })).toBe(false);
  });
});
