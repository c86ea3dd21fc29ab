// `/favicon.ico`: a 16×16 lightning-yellow square with a dark bolt, drawn here as a PNG inside an ICO
// container (every current browser reads PNG icons), so the status pages stop logging a 404 and no
// binary file has to ship. Built once, on first use.
import { crc32, deflateSync } from 'node:zlib';

const size = 16;
// A bolt from top right to bottom left: the columns lit in each row.
const bolt = (x: number, y: number): boolean => {
  const centre = y < 8 ? 10 - Math.floor(y / 2) : 9 - Math.floor((y - 8) / 2);
  return y >= 2 && y <= 13 && Math.abs(x - centre) <= 1;
};

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([head, typed, crc]);
};

const png = (): Buffer => {
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const [r, g, b] = bolt(x, y) ? [0x1f, 0x23, 0x28] : [0xf5, 0xc2, 0x1b];
      row.set([r, g, b, 0xff], 1 + x * 4);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

let icon: Buffer | undefined;

/** The ICO file: its header, one directory entry, the PNG. */
export const faviconIco = (): Buffer => {
  if (icon) return icon;
  const image = png();
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.set([size, size, 0, 0], 6); // width, height, no palette, reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  icon = Buffer.concat([header, image]);
  return icon;
};
