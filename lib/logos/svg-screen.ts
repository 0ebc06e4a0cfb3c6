import { DomainError } from "@/lib/http/errors";
import { Parser } from "htmlparser2";
import { rasterSize } from "./raster-header";
import { MAX_EMBEDDED_IMAGE_BYTES, MAX_EMBEDDED_IMAGE_PIXELS, MAX_SVG_DEPTH, MAX_SVG_ELEMENTS } from "./schemas";

/**
 * Refuses, before anything renders it, what a logo does not need and a renderer can be made to
 * spend minutes or gigabytes on: filters, scripts, animation, foreign content, references to
 * anything outside the file, document type declarations (entities), and embedded raster images
 * beyond a small size. What passes is plain shapes, paths, text, gradients, masks and small
 * embedded PNG or JPEG images, which is what logos are made of.
 *
 * The file is read by an XML tokenizer, element by element and attribute by attribute (each
 * attribute value with its character references decoded), so no spelling of a name or an
 * attribute escapes the rules; CSS (style elements and attributes) is judged after removing its
 * comments, and CSS escapes are refused outright.
 */
export function screenSvg(bytes: Buffer): void {
  const screen = new SvgScreen();
  const parser = new Parser(screen.handler(), { xmlMode: true, decodeEntities: true });
  parser.end(bytes.toString("utf8"));
  screen.finish();
}

/** Elements by local name (any prefix, any case) and why they are refused. */
const REFUSED_ELEMENTS: [test: (name: string) => boolean, reason: string][] = [
  [(name) => name === "filter" || name.startsWith("fe"), "filters"],
  [(name) => name === "script" || name === "handler" || name === "listener", "scripts"],
  [(name) => name.startsWith("animate") || name === "set" || name === "discard", "animation"],
  [(name) => name === "foreignobject" || name === "iframe" || name === "video" || name === "audio", "foreign content"],
];

const SVG_FIX = "export it again without them (or flatten them to shapes in your editor), or upload a PNG";

class SvgScreen {
  private readonly open: string[] = [];
  private roots = 0;
  private elements = 0;
  private embeddedPixels = 0;
  private styleText = "";
  /** Whether nothing came between the last tag and now, so an "implied" close is that tag's own `/>`. */
  private justOpened = false;

  /** The tokenizer reports a tag's name, then its attributes, then the tag; a self-closing tag is closed at once, as "implied". */
  handler() {
    return {
      onprocessinginstruction: (name: string) => this.declaration(name.toLowerCase()),
      onopentagname: (name: string) => this.openElement(name),
      onattribute: (name: string, value: string) => this.attribute(name, value),
      onopentag: (_name: string, _attributes: unknown, isImplied: boolean) => {
        if (isImplied) throw notWellFormed();
        this.justOpened = true;
      },
      onclosetag: (name: string, isImplied: boolean) => this.closeElement(name, isImplied),
      ontext: (text: string) => this.text(text),
    };
  }

  finish(): void {
    if (this.roots !== 1 || this.open.length > 0) throw notWellFormed();
  }

  private declaration(name: string): void {
    if (name === "?xml") return;
    if (name.startsWith("!")) {
      throw refused(
        "The SVG declares a document type or entities (<!DOCTYPE …>), which a logo does not need and " +
          "which can pull in other files; remove the declaration and upload it again.",
      );
    }
    throw refused(`The SVG carries a processing instruction (<${name} …>), which can load other files; ${SVG_FIX}.`);
  }

  private openElement(qualifiedName: string): void {
    const name = localName(qualifiedName);
    if (this.open.length === 0) {
      this.roots++;
      if (name !== "svg" || this.roots > 1) throw notWellFormed();
    }
    for (const [test, reason] of REFUSED_ELEMENTS) {
      if (test(name)) throw refused(`The SVG uses ${reason} (<${qualifiedName}>), which a logo does not need; ${SVG_FIX}.`);
    }
    this.open.push(qualifiedName);
    this.elements++;
    if (this.elements > MAX_SVG_ELEMENTS || this.open.length > MAX_SVG_DEPTH) {
      throw refused(
        `The SVG has more than ${MAX_SVG_ELEMENTS} elements or nests them more than ${MAX_SVG_DEPTH} deep; simplify it or upload a PNG.`,
      );
    }
  }

  private closeElement(qualifiedName: string, isImplied: boolean): void {
    const selfClosed = isImplied && this.justOpened;
    this.justOpened = false;
    if ((isImplied && !selfClosed) || this.open.pop() !== qualifiedName) throw notWellFormed();
    if (localName(qualifiedName) === "style") {
      this.css(this.styleText);
      this.styleText = "";
    }
  }

  private text(text: string): void {
    this.justOpened = false;
    if (this.open.length === 0) {
      if (text.trim() !== "") throw notWellFormed();
      return;
    }
    if (localName(this.open.at(-1)!) === "style") this.styleText += text;
  }

  private attribute(qualifiedName: string, value: string): void {
    const name = localName(qualifiedName);
    if (name.startsWith("on")) {
      throw refused(`The SVG has an event handler (${qualifiedName}="…"), which a logo does not need; ${SVG_FIX}.`);
    }
    if (name === "href" || name === "src") return this.reference(qualifiedName, value.trim());
    if (name === "style") return this.css(value);
    // librsvg parses presentation attributes (unprefixed ones) as CSS, so an escape there can spell
    // url() past urlsIn; an editor's own attributes (inkscape:export-filename="C:\…") are not CSS.
    if (!qualifiedName.includes(":")) refuseCssEscapes(value);
    if (name === "filter" && value.trim().toLowerCase() !== "none") {
      throw refused(
        `The SVG applies a filter (filter="${value}"), which a logo does not need and which can take minutes to render; ${SVG_FIX}.`,
      );
    }
    this.urlsIn(value);
  }

  /** A link stays inside the file (`#id`), or is a small PNG or JPEG written into it. */
  private reference(attribute: string, target: string): void {
    if (target.startsWith("#")) return;
    if (/^data:/i.test(target) && localName(this.open.at(-1)!) === "image") return this.embeddedImage(target);
    throw refused(`The SVG refers to something outside the file (${attribute}="${shorten(target)}"); embed it or ${SVG_FIX}.`);
  }

  private embeddedImage(dataUrl: string): void {
    const match = /^data:(image\/(?:png|jpeg))(?:;[^,]*)?;base64,([a-z0-9+/=\s]*)$/i.exec(dataUrl);
    if (!match) {
      throw refused("The SVG embeds an image that is not a base64 PNG or JPEG; a logo may embed only those, or upload a PNG.");
    }
    const image = Buffer.from(match[2]!, "base64");
    if (image.length > MAX_EMBEDDED_IMAGE_BYTES) {
      throw tooLarge(
        `The SVG embeds an image of ${kilobytes(image.length)} KB; an embedded image may be at most ` +
          `${kilobytes(MAX_EMBEDDED_IMAGE_BYTES)} KB, so scale it down or upload a PNG.`,
      );
    }
    const size = rasterSize(image);
    if (!size)
      throw refused("The SVG embeds an image whose header cannot be read; embed a complete PNG or JPEG, or upload a PNG.");
    this.embeddedPixels += size.width * size.height;
    if (this.embeddedPixels > MAX_EMBEDDED_IMAGE_PIXELS) {
      throw tooLarge(
        `The SVG embeds an image of ${size.width}×${size.height} pixels, more than the ` +
          `${MAX_EMBEDDED_IMAGE_PIXELS / 1e6} megapixels all embedded images may have together; scale it ` +
          `down or upload a PNG.`,
      );
    }
  }

  private css(text: string): void {
    const css = text.replace(/\/\*[\s\S]*?\*\//g, " ");
    refuseCssEscapes(css);
    if (/@import/i.test(css)) throw refused(`The SVG's CSS imports another file (@import); ${SVG_FIX}.`);
    // Every declaration, not the first: a later `filter` overrides an earlier `filter: none`.
    for (const [, filter] of css.matchAll(/(?:^|[\s;{])filter\s*:\s*([^;}]*)/gi)) {
      if (filter!.trim().toLowerCase() === "none") continue;
      throw refused(
        `The SVG's CSS applies a filter (filter: ${shorten(filter!.trim())}), which can take minutes to render; ${SVG_FIX}.`,
      );
    }
    this.urlsIn(css);
  }

  /** Paint, clip paths, masks and markers may point at an element of this file, url(#id), and nowhere else. */
  private urlsIn(value: string): void {
    for (const [, target] of value.matchAll(/url\s*\(\s*['"]?\s*([^'")\s]*)/gi)) {
      if (!target!.startsWith("#")) {
        throw refused(`The SVG refers to something outside the file (url(${shorten(target!)})); ${SVG_FIX}.`);
      }
    }
  }
}

function refuseCssEscapes(css: string): void {
  if (css.includes("\\")) throw refused(`The SVG's CSS uses escapes (\\), which a logo does not need; ${SVG_FIX}.`);
}

function localName(qualifiedName: string): string {
  return qualifiedName.slice(qualifiedName.indexOf(":") + 1).toLowerCase();
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function kilobytes(bytes: number): number {
  return Math.ceil(bytes / 1024);
}

function refused(message: string): DomainError {
  return new DomainError("refused", message);
}

function tooLarge(message: string): DomainError {
  return new DomainError("too_large", message);
}

export function notWellFormed(): DomainError {
  return new DomainError(
    "unsupported_media_type",
    "The body is not a well-formed SVG image (one <svg> element, every tag closed); send the SVG file itself, or a PNG.",
  );
}
