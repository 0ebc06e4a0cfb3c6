import { describe, expect, it } from "vitest";
import { ScanBuffer, type ScanEvent } from "./scan-buffer";

const event = (linkId: string): ScanEvent => ({
  linkId, host: "s.example", occurredAt: 0, userAgent: null, referrer: null, country: null, viaQr: false,
});

function recordingWriter(options: { failFirst?: number } = {}) {
  const batches: ScanEvent[][] = [];
  let failures = options.failFirst ?? 0;
  const write = async (events: ScanEvent[]) => {
    if (failures-- > 0) throw new Error("database unavailable");
    batches.push(events);
  };
  return { batches, write };
}

describe("ScanBuffer", () => {
  it("writes nothing until flushed, then everything in order, in batches of at most 5000", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, () => undefined);
    for (let i = 0; i < 4999; i++) buffer.record(event(`l${i}`));
    expect(writer.batches).toHaveLength(0);
    await buffer.flush();
    expect(writer.batches.map((batch) => batch.length)).toEqual([4999]);
    expect(writer.batches[0]![0]!.linkId).toBe("l0");
  });

  it("flushes by itself once 5000 events are waiting, and splits larger backlogs into batches of 5000", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, () => undefined);
    for (let i = 0; i < 5000; i++) buffer.record(event(`l${i}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.batches.map((batch) => batch.length)).toEqual([5000]);

    const backlogWriter = recordingWriter();
    const backlog = new ScanBuffer(backlogWriter.write, () => undefined);
    for (let i = 0; i < 12_000; i++) backlog.record(event(`b${i}`));
    await backlog.flush();
    expect(backlogWriter.batches.map((batch) => batch.length)).toEqual([5000, 5000, 2000]);
  });

  it("while writes fail, retries on the timer only and logs once", async () => {
    let attempts = 0;
    const messages: string[] = [];
    const buffer = new ScanBuffer(async () => {
      attempts++;
      throw new Error("database unavailable");
    }, (message) => messages.push(message));
    for (let i = 0; i < 5000; i++) buffer.record(event(`l${i}`));
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 200; i++) buffer.record(event(`more${i}`));
    await buffer.flush();
    expect(attempts).toBe(2);
    expect(messages).toHaveLength(1);
  });

  it("keeps the events of a failed write for the next flush, in order", async () => {
    const writer = recordingWriter({ failFirst: 1 });
    const messages: string[] = [];
    const buffer = new ScanBuffer(writer.write, (message) => messages.push(message));
    buffer.record(event("first"));
    buffer.record(event("second"));
    await buffer.flush();
    expect(writer.batches).toHaveLength(0);
    expect(messages[0]).toMatch(/stay buffered/);
    buffer.record(event("third"));
    await buffer.flush();
    expect(writer.batches.flat().map((scan) => scan.linkId)).toEqual(["first", "second", "third"]);
  });

  it("shares one write between concurrent flushes", async () => {
    const writer = recordingWriter();
    const buffer = new ScanBuffer(writer.write, () => undefined);
    buffer.record(event("only"));
    await Promise.all([buffer.flush(), buffer.flush(), buffer.flush()]);
    expect(writer.batches).toHaveLength(1);
  });
});
