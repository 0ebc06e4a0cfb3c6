import { DomainError } from "@/lib/http/errors";
import { idleScheduling } from "@/lib/idle-process";
import { embeddedBombSvg, filterChainSvg, hostileLogos } from "@/tests/support/hostile-logos";
import { colourAt, pixelsOf, pngBomb, solidImage } from "@/tests/support/images";
import { threadPolicies } from "@/tests/support/scheduling";
import { fork } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeLogo, logoFromOutcome, logoUploadType } from "./decode";
import { createRenderSandbox, type RenderOutcome, type SandboxLimits } from "./render-sandbox";
import type { LogoUploadType } from "./schemas";

async function refusal(bytes: Buffer, type: LogoUploadType): Promise<DomainError> {
  try {
    await encodeLogo(bytes, type, "ws_decode_test");
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("The upload was accepted.");
}

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => processStat(Number(entry))?.parent === pid)
    .map(Number);
}

/** Alive and not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  const stat = processStat(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
}

function processStat(pid: number): { state: string; parent: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1)!.split(" ");
    return { state: fields[0]!, parent: Number(fields[1]) };
  } catch {
    return null;
  }
}

/**
 * A render this process starts, and its renderer: the child that was not there before, found as
 * soon as its command names the renderer's script (chrt's, then Node's: the same pid), long before
 * it has loaded sharp.
 */
async function watched<T>(start: () => Promise<T>): Promise<{ rendering: Promise<T>; renderer: number }> {
  const before = new Set(childrenOf(process.pid));
  const rendering = start();
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    // Under SCHED_IDLE the child is chrt first, which sets the policy and then execs Node with the
    // same arguments: the renderer is the child once it runs Node, not chrt still setting up.
    const renderer = childrenOf(process.pid).find(
      (child) => !before.has(child) && commandOf(child).includes("render-process.mjs") && !runs(child, "chrt"),
    );
    if (renderer !== undefined) return { rendering, renderer };
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error("No renderer process started.");
}

/** Whether the process's executable is named `name` (read from /proc/<pid>/exe). */
function runs(pid: number, name: string): boolean {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) === name;
  } catch {
    return false;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

async function eventually(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the upload's Content-Type", () => {
  it.each([
    "image/png",
    "IMAGE/PNG",
    "image/png; charset=binary",
    "image/jpeg",
    "image/webp",
    "image/svg+xml",
    "image/svg+xml;charset=utf-8",
  ])("accepts %s", (type) => {
    expect(logoUploadType(type)).toBe(type.split(";")[0]!.toLowerCase());
  });

  it.each([null, "", "image/gif", "application/octet-stream", "text/xml", "image/svg"])(
    "refuses %s with 415 naming the accepted types",
    (type) => {
      expect(() => logoUploadType(type)).toThrow(DomainError);
      try {
        logoUploadType(type);
      } catch (error) {
        expect((error as DomainError).code).toBe("unsupported_media_type");
        expect((error as DomainError).message).toMatch(/image\/png, image\/jpeg, image\/webp, image\/svg\+xml/);
      }
    },
  );
});

describe("re-encoding an accepted logo", () => {
  it.each(["png", "jpeg", "webp"] as const)(
    "turns a %s into a PNG of at most 1024×1024, keeping its shape and colour",
    async (format) => {
      const upload = await solidImage(format, 2000, 1000, "#2060c0");
      const logo = await encodeLogo(upload, `image/${format}`, "ws_decode_test");
      expect(logo.data.subarray(0, 8)).toEqual(PNG_MAGIC);
      expect([logo.width, logo.height]).toEqual([1024, 512]);
      const pixels = await pixelsOf(logo.data);
      expect([pixels.width, pixels.height]).toEqual([1024, 512]);
      const [red, green, blue] = colourAt(pixels, 512, 256);
      expect(Math.abs(red - 0x20) + Math.abs(green - 0x60) + Math.abs(blue - 0xc0)).toBeLessThan(12);
    },
  );

  it("keeps a small logo at its own size", async () => {
    const logo = await encodeLogo(await solidImage("png", 120, 80, "#000000"), "image/png", "ws_decode_test");
    expect([logo.width, logo.height]).toEqual([120, 80]);
  });

  it("turns a phone photo upright by its EXIF orientation and drops the metadata", async () => {
    const photo = await sharp({ create: { width: 200, height: 100, channels: 3, background: "#808080" } })
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: "secret location" } } })
      .jpeg()
      .toBuffer();
    const logo = await encodeLogo(photo, "image/jpeg", "ws_decode_test");
    expect([logo.width, logo.height]).toEqual([100, 200]);
    const metadata = await sharp(logo.data).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(logo.data.includes("secret location")).toBe(false);
  });

  it("rasterises a clean SVG, scaling a small icon up to 1024 pixels", async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle ' +
      'cx="32" cy="32" r="30" fill="#2040d0"/></svg>';
    const logo = await encodeLogo(Buffer.from(svg), "image/svg+xml", "ws_decode_test");
    expect(logo.data.subarray(0, 8)).toEqual(PNG_MAGIC);
    expect([logo.width, logo.height]).toEqual([1024, 1024]);
    const pixels = await pixelsOf(logo.data);
    expect(colourAt(pixels, 512, 512)).toEqual([0x20, 0x40, 0xd0, 255]);
    expect(colourAt(pixels, 2, 2)[3]).toBe(0);
  });
});

describe("an SVG with active content or outside references", () => {
  let server: Server;
  let requests = 0;
  let serverUrl = "";
  let localFile = "";

  beforeAll(async () => {
    const red = await solidImage("png", 64, 64, "#ff0000");
    server = createServer((_request, response) => {
      requests++;
      response.writeHead(200, { "content-type": "image/png" }).end(red);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const folder = await mkdtemp(join(tmpdir(), "logo-"));
    localFile = join(folder, "red.png");
    await writeFile(localFile, red);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const image = (href: string) => `<image href="${href}" x="0" y="0" width="50" height="50"/>`;
  it.each([
    ["a script", () => `<script>fetch("${serverUrl}/script")</script>`, /uses scripts \(<script>\)/],
    ["a namespaced script", () => `<svg:script xmlns:svg="http://www.w3.org/2000/svg">1</svg:script>`, /uses scripts/],
    ["an event handler", () => `<rect width="9" height="9" onclick="fetch('${serverUrl}/click')"/>`, /event handler \(onclick=/],
    ["a style sheet import", () => `<style>@import url("${serverUrl}/style.css");</style>`, /imports another file/],
    [
      "a remote paint in CSS",
      () => `<style>rect { fill: url("${serverUrl}/paint.svg#p") }</style>`,
      /outside the file \(url\(http/,
    ],
    ["a remote paint hidden by a CSS escape", () => `<style>rect { fill: u\\72l(${serverUrl}/p) }</style>`, /CSS uses escapes/],
    ["a remote paint spelt with character references", () => `<rect fill="&#x75;rl(${serverUrl}/p)"/>`, /outside the file/],
    ["a remote image", () => image(`${serverUrl}/remote.png`), /outside the file \(href="http/],
    ["a local file", () => `<image xlink:href="file://${localFile}"/>`, /outside the file \(xlink:href="file:/],
    ["a bare path", () => image(localFile), /outside the file/],
    ["a remote sprite", () => `<use href="${serverUrl}/sprite.svg#icon"/>`, /outside the file/],
    ["a link", () => `<a href="${serverUrl}/"><rect width="9" height="9"/></a>`, /outside the file/],
    [
      "foreign content",
      () => `<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="${serverUrl}/f"/></foreignObject>`,
      /foreign content/,
    ],
    [
      "animation",
      () => `<rect width="9" height="9"><animate attributeName="x" from="0" to="9" dur="1s"/></rect>`,
      /uses animation/,
    ],
    ["a filter", () => `<filter id="f"><feGaussianBlur stdDeviation="200"/></filter>`, /uses filters/],
    ["a CSS filter", () => `<rect width="9" height="9" style="fill:red;filter:blur(200px)"/>`, /CSS applies a filter/],
    [
      "a CSS filter after a harmless one (the last declaration wins)",
      () => `<rect width="9" height="9" style="filter:none;filter:blur(200px)"/>`,
      /CSS applies a filter \(filter: blur/,
    ],
    [
      "a document of filters behind a CSS escape in a presentation attribute",
      () =>
        `<rect width="9" height="9" fill="\\75rl(data:image/svg+xml;base64,${Buffer.from(filterChainSvg()).toString("base64")}#p)"/>`,
      /CSS uses escapes/,
    ],
    [
      "an embedded SVG",
      () => image(`data:image/svg+xml;base64,${Buffer.from("<svg/>").toString("base64")}`),
      /not a base64 PNG or JPEG/,
    ],
  ])("refuses %s before rendering, with a sentence naming it, and loads nothing", async (_name, content, message) => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
        <rect width="100" height="100" fill="#2040d0"/>${content()}</svg>`;
    const error = await refusal(Buffer.from(svg), "image/svg+xml");
    expect(error.code).toBe("refused");
    expect(error.message).toMatch(message);
    expect(requests).toBe(0);
  });

  it("is refused when it declares entities (the file one names is never read)", async () => {
    const svg = `<?xml version="1.0"?>
      <!DOCTYPE svg [<!ENTITY secret SYSTEM "file://${localFile}">]>
      <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><text x="10" y="90">&secret;</text></svg>`;
    const error = await refusal(Buffer.from(svg), "image/svg+xml");
    expect(error.code).toBe("refused");
    expect(error.message).toBe(
      "The SVG declares a document type or entities (<!DOCTYPE …>), which a logo does not need and " +
        "which can pull in other files; remove the declaration and upload it again.",
    );
  });

  it("keeps what logos are made of: gradients, clip paths, references inside the file and a small embedded PNG", async () => {
    const green = (await solidImage("png", 32, 32, "#00ff00")).toString("base64");
    const svg = `<?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
        <!-- exported by an editor -->
        <defs><linearGradient id="g"><stop offset="0" stop-color="#2040d0"/><stop offset="1" stop-color="#2040d0"/></linearGradient>
        <clipPath id="c"><rect width="100" height="100"/></clipPath><rect id="box" width="100" height="50"/></defs>
        <style><![CDATA[ .blue { fill: url(#g) } ]]></style>
        <use xlink:href="#box" class="blue" clip-path="url(#c)"/>
        <image href="data:image/png;base64,${green}" x="0" y="50" width="100" height="50"/>
      </svg>`;
    const pixels = await pixelsOf((await encodeLogo(Buffer.from(svg), "image/svg+xml", "ws_decode_test")).data);
    expect(colourAt(pixels, 512, 100)).toEqual([0x20, 0x40, 0xd0, 255]);
    expect(colourAt(pixels, 512, 900)).toEqual([0, 255, 0, 255]);
  });
});

describe("an editor's export", () => {
  it("keeps a Windows path in an editor's own attribute (backslashes that are not CSS)", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
        inkscape:export-filename="C:\\Users\\ada\\logo.png" width="64" height="64"><rect width="64" height="64" fill="#2040d0"/></svg>`;
    await expect(encodeLogo(Buffer.from(svg), "image/svg+xml", "ws_decode_test")).resolves.toMatchObject({
      width: 1024,
      height: 1024,
    });
  });
});

describe("hostile SVGs", () => {
  it("refuses the filter-chain SVG quickly, without rendering it", async () => {
    const started = performance.now();
    const error = await refusal(filterChainSvg(), "image/svg+xml");
    expect(error.code).toBe("refused");
    expect(error.message).toBe(
      "The SVG uses filters (<filter>), which a logo does not need; export it again without them (or " +
        "flatten them to shapes in your editor), or upload a PNG.",
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("refuses an embedded 11000×11000 PNG quickly, from its header", async () => {
    const svg = embeddedBombSvg();
    expect(svg.length).toBeLessThan(30_000);
    const started = performance.now();
    const error = await refusal(svg, "image/svg+xml");
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(
      "The SVG embeds an image of 11000×11000 pixels, more than the 4 megapixels all embedded images " +
        "may have together; scale it down or upload a PNG.",
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each(hostileLogos().map((logo) => [logo.name, logo] as const))(
    "refuses the bench's hostile logo: %s",
    async (_name, logo) => {
      const error = await refusal(logo.bytes, logo.type as LogoUploadType);
      expect(["refused", "too_large"]).toContain(error.code);
    },
  );

  it("refuses embedded images that are small one by one but many pixels together", async () => {
    const tile = pngBomb(1500).toString("base64");
    const images = Array.from({ length: 3 }, () => `<image href="data:image/png;base64,${tile}" width="9" height="9"/>`);
    const error = await refusal(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg">${images.join("")}</svg>`), "image/svg+xml");
    expect(error.code).toBe("too_large");
    expect(error.message).toMatch(/1500×1500 pixels, more than the 4 megapixels all embedded images may have together/);
  });
});

describe("the render sandbox (what gets past the screen still cannot take the service)", () => {
  const job = (bytes: Buffer) => ({ bytes, format: "svg", maxSide: 1024, maxSourcePixels: 25_000_000 });
  /** A sandbox with room to spare in every limit the test does not name. */
  const sandboxFor = (limits: Partial<SandboxLimits>) =>
    createRenderSandbox({
      timeoutMs: 600_000,
      wallClockMs: 600_000,
      memoryBytes: 4 * 1024 ** 3,
      concurrency: 1,
      queue: 0,
      ...limits,
    });
  const clean = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>');
  /** The refusal an upload gets for a renderer's outcome. */
  const refusalFor = (outcome: RenderOutcome): DomainError => {
    try {
      logoFromOutcome(outcome, "image/svg+xml");
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
    throw new Error("The outcome was taken as a logo.");
  };

  it("kills a render that runs past its CPU time", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1500, wallClockMs: 60_000 });
    const { rendering, renderer } = await watched(() => sandbox.render(job(filterChainSvg()), "ws_sandbox_test"));
    expect(await rendering).toEqual({ outcome: "timed_out" });
    expect(await eventually(() => !isRunning(renderer), 1000)).toBe(true);
  });

  it("kills a render that grows past its memory", async () => {
    const sandbox = sandboxFor({ timeoutMs: 60_000, memoryBytes: 256 * 1024 ** 2 });
    expect(await sandbox.render(job(embeddedBombSvg()), "ws_sandbox_test")).toEqual({ outcome: "out_of_memory" });
  });

  it("ends a render at once when the process that started it dies (nobody is left to kill it)", async () => {
    const folder = await mkdtemp(join(tmpdir(), "render-parent-"));
    const parentScript = join(folder, "parent.mts");
    const svg = join(folder, "runaway.svg");
    await writeFile(svg, filterChainSvg());
    await writeFile(
      parentScript,
      `import { readFileSync } from "node:fs";
       const { createRenderSandbox } = await import(${JSON.stringify(join(process.cwd(), "lib/logos/render-sandbox.ts"))});
       const sandbox = createRenderSandbox({
         timeoutMs: 600_000, wallClockMs: 600_000, memoryBytes: 4 * 1024 ** 3, concurrency: 1, queue: 0,
       });
       void sandbox.render({ bytes: readFileSync(${JSON.stringify(svg)}), format: "svg", maxSide: 1024, maxSourcePixels: 25_000_000 }, "ws_sandbox_test");
       process.send("rendering");`,
    );
    // tsx, as npm start runs the service: it resolves the sandbox's imports (@/lib/…) as the app does.
    const parent = fork(parentScript, [], { stdio: "ignore", execArgv: ["--import", "tsx"] });
    await once(parent, "message");
    const renderer = childrenOf(parent.pid!)[0]!;
    parent.kill("SIGKILL");
    await once(parent, "exit");
    const gone = await eventually(() => !isRunning(renderer), 5000);
    if (!gone) process.kill(renderer, "SIGKILL");
    expect(gone).toBe(true);
  });

  it("answers busy when its line is full, and renders what waits once a place frees", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1500, queue: 1 });
    const runaway = sandbox.render(job(filterChainSvg()), "ws_sandbox_test");
    const waiting = sandbox.render(job(clean), "ws_sandbox_test");
    expect(await sandbox.render(job(clean), "ws_sandbox_test")).toEqual({ outcome: "busy" });
    expect(await runaway).toEqual({ outcome: "timed_out" });
    expect(await waiting).toMatchObject({ outcome: "encoded", width: 1024, height: 1024 });
  });

  it("shares its line fairly: another workspace's upload takes the newest place of the one holding the most", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1500, queue: 2 });
    const runaway = sandbox.render(job(filterChainSvg()), "ws_hostile");
    const hostileWaiting = sandbox.render(job(clean), "ws_hostile");
    const hostileNewest = sandbox.render(job(clean), "ws_hostile");
    const neighbour = sandbox.render(job(clean), "ws_neighbour");
    expect(await hostileNewest).toEqual({ outcome: "busy" });
    expect(await sandbox.render(job(clean), "ws_hostile")).toEqual({ outcome: "busy" });
    expect(await runaway).toEqual({ outcome: "timed_out" });
    expect(await neighbour).toMatchObject({ outcome: "encoded" });
    expect(await hostileWaiting).toMatchObject({ outcome: "encoded" });
  });

  it("renders under SCHED_IDLE, every thread: only on CPU time redirects and the dashboard leave", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1500 });
    const { rendering, renderer } = await watched(() => sandbox.render(job(filterChainSvg()), "ws_sandbox_test"));
    const policies = threadPolicies(renderer);
    expect(await rendering).toEqual({ outcome: "timed_out" });
    expect(new Set(policies)).toEqual(new Set([idleScheduling().policy === "sched_idle" ? "idle" : "normal"]));
  });

  it("judges a render by the CPU time it used, not the time it waited for the CPU", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1000 });
    const { rendering, renderer } = await watched(() => sandbox.render(job(clean), "ws_sandbox_test"));
    // What a busy CPU does to a renderer at idle priority, in the extreme: it waits, using no CPU.
    process.kill(renderer, "SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    process.kill(renderer, "SIGCONT");
    expect(await rendering).toMatchObject({ outcome: "encoded", width: 1024, height: 1024 });
  });

  it("gives up a render that never got the CPU with a 429 sentence saying so, not 'too complex'", async () => {
    const sandbox = sandboxFor({ timeoutMs: 1000, wallClockMs: 2000 });
    const { rendering, renderer } = await watched(() => sandbox.render(job(clean), "ws_sandbox_test"));
    process.kill(renderer, "SIGSTOP");
    const outcome = await rendering;
    expect(outcome).toEqual({ outcome: "starved" });
    const refusal = refusalFor(outcome);
    expect(refusal.code).toBe("rate_limited");
    expect(refusal.headers).toEqual({ "Retry-After": "60" });
    expect(refusal.message).toBe(
      "The server is too busy to finish the logo right now, so it was not changed; upload it again in a minute.",
    );
  });

  it("answers unavailable when the renderer cannot start, and the upload gets a 503 sentence, not a 500", async () => {
    const broken = sandboxFor({ timeoutMs: 5_000, script: join(tmpdir(), "no-such-renderer.mjs") });
    const outcome = await broken.render(job(clean), "ws_sandbox_test");
    expect(outcome).toEqual({ outcome: "unavailable" });
    const refusal = refusalFor(outcome);
    expect(refusal.code).toBe("not_configured");
    expect(refusal.message).toMatch(/^The logo renderer could not be started/);
  });

  it("refuses with 429 and a sentence when the service's line is full (one renders, eight wait)", async () => {
    const logo = await solidImage("png", 64, 64, "#000000");
    const results = await Promise.all(
      Array.from({ length: 14 }, () => encodeLogo(logo, "image/png", "ws_decode_test").catch((error) => error)),
    );
    const busy = results.filter((result) => result instanceof DomainError);
    expect(busy.map((error) => error.code)).toEqual(Array(5).fill("rate_limited"));
    expect(busy[0]!.headers).toEqual({ "Retry-After": "60" });
    expect(busy[0]!.message).toBe("Too many logos are being processed right now; upload it again in a minute.");
  });
});

describe("refused uploads", () => {
  it("refuses a decompression bomb (400 megapixels in a few kilobytes) with 413, before decoding it", async () => {
    const bomb = pngBomb(20_000);
    expect(bomb.length).toBeLessThan(100_000);
    const started = performance.now();
    const error = await refusal(bomb, "image/png");
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(
      "The image is 20000×20000 pixels (400.0 megapixels); a logo may have at most 25 megapixels, so scale it down first.",
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each([
    [
      "a PNG sent as image/jpeg",
      () => solidImage("png", 10, 10, "#000"),
      "image/jpeg",
      "The body is a PNG, not the image/jpeg its Content-Type claims; send it with its real type.",
    ],
    [
      "a JPEG sent as image/png",
      () => solidImage("jpeg", 10, 10, "#000"),
      "image/png",
      "The body is a JPEG, not the image/png its Content-Type claims; send it with its real type.",
    ],
    ["a WebP sent as image/png", () => solidImage("webp", 10, 10, "#000"), "image/png", /is a WebP, not the image\/png/],
    [
      "an SVG sent as image/png",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      "image/png",
      /is an SVG, not the image\/png/,
    ],
    [
      "a GIF sent as image/png",
      () =>
        sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
          .gif()
          .toBuffer(),
      "image/png",
      /is a GIF, not the image\/png/,
    ],
    [
      "a PNG sent as image/svg+xml",
      () => solidImage("png", 10, 10, "#000"),
      "image/svg+xml",
      /is a PNG, not the image\/svg\+xml/,
    ],
    [
      "text sent as image/png",
      async () => Buffer.from("this is not an image at all"),
      "image/png",
      "The body is not a complete, readable image/png image; send the image file itself with its real type.",
    ],
    [
      "HTML sent as image/svg+xml",
      async () => Buffer.from("<html><body>hello</body></html>"),
      "image/svg+xml",
      "The body is not a well-formed SVG image (one <svg> element, every tag closed); send the SVG file itself, or a PNG.",
    ],
    [
      "an SVG with a tag left open",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><g><rect/></svg>'),
      "image/svg+xml",
      /not a well-formed SVG image/,
    ],
    [
      "a compressed SVG",
      async () => gzipSync('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      "image/svg+xml",
      /compressed SVG \(.svgz\)/,
    ],
    [
      "a truncated PNG",
      async () => (await solidImage("png", 300, 300, "#123456")).subarray(0, 200),
      "image/png",
      /not a complete, readable image\/png/,
    ],
  ] as const)("refuses %s with 415", async (_name, make, type, message) => {
    const error = await refusal(await make(), type);
    expect(error.code).toBe("unsupported_media_type");
    expect(error.message).toMatch(message);
  });

  it("refuses an empty body with 400", async () => {
    const error = await refusal(Buffer.alloc(0), "image/png");
    expect(error.code).toBe("invalid_request");
  });
});
