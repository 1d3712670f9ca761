import fs from "node:fs";

// The symbolic links of a zip (`zip -y`, or the CLI's folder zip): entries made on Unix
// (version made by, high byte 3) whose external attributes carry S_IFLNK. Their data is the
// link's target; a reader that ignores the mode would take that path for the file's text.
// Read from the central directory only (a ZIP64 archive, whose offsets are elsewhere: none found).

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Entry names that are symbolic links (their targets are their data). */
export function zipSymlinkNames(file: string): Set<string> {
  const out = new Set<string>();
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const tailLen = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLen);
    fs.readSync(fd, tail, 0, tailLen, size - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) return out;
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || cdSize === 0xffffffff || cdOffset + cdSize > size) return out;
    const cd = Buffer.alloc(cdSize);
    fs.readSync(fd, cd, 0, cdSize, cdOffset);
    for (let p = 0; p + 46 <= cd.length && cd.readUInt32LE(p) === 0x02014b50; ) {
      const madeOn = cd[p + 5];
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const attrs = cd.readUInt32LE(p + 38);
      if (madeOn === 3 && ((attrs >>> 16) & S_IFMT) === S_IFLNK) out.add(cd.toString("utf8", p + 46, p + 46 + nameLen));
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}
