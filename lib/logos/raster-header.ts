/** Width and height from a PNG's IHDR chunk or a JPEG's start-of-frame marker, without decoding pixels. */
export function rasterSize(image: Buffer): { width: number; height: number } | null {
  if (image.length >= 24 && image.readUInt32BE(0) === 0x89504e47 && image.toString("ascii", 12, 16) === "IHDR") {
    return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length < 4 || image.readUInt16BE(0) !== 0xffd8) return null;
  let offset = 2;
  while (offset + 9 <= image.length && image[offset] === 0xff) {
    const marker = image[offset + 1]!;
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isStartOfFrame) return { width: image.readUInt16BE(offset + 7), height: image.readUInt16BE(offset + 5) };
    offset += 2 + image.readUInt16BE(offset + 2);
  }
  return null;
}
