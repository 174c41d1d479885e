// ZIP archives written and read by hand, for the .xlsx reader's tests: real archives whose entries a test rewrites
// (a sheet replaced, a part stored instead of deflated, an extra field or a comment added).

/** One entry: `data` as it is stored, `method` 0 (stored) or 8 (deflated), `size` its inflated bytes. */
export type ZipEntry = {
  name: string;
  data: Buffer;
  method: number;
  size: number;
  crc?: number;
  /** written in both headers, the central one's twice (as different lengths would be) */
  extra?: Buffer;
  /** in the central directory */
  comment?: Buffer;
};

/** The entries of an archive laid out as writeXlsx writes it (local headers first), their data as stored. */
export function zipEntries(zip: Buffer): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = 0;
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const packedSize = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const name = zip.toString('utf8', at + 30, at + 30 + nameLength);
    const data = zip.subarray(at + 30 + nameLength, at + 30 + nameLength + packedSize);
    const [method, crc, size] = [zip.readUInt16LE(at + 8), zip.readUInt32LE(at + 14), zip.readUInt32LE(at + 22)];
    entries.push({ name, data, method, size, crc });
    at += 30 + nameLength + packedSize;
  }
  return entries;
}

/** An archive of `entries`: local headers and data, the central directory, the end record. */
export function zipOf(entries: ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const extra = e.extra ?? Buffer.alloc(0);
    const comment = e.comment ?? Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc ?? 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    local.copy(c, 6, 4, 28);
    c.writeUInt16LE(extra.length * 2, 30);
    c.writeUInt16LE(comment.length, 32);
    c.writeUInt32LE(offset, 42);
    parts.push(local, name, extra, e.data);
    central.push(c, name, extra, extra, comment);
    offset += 30 + name.length + extra.length + e.data.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(Buffer.concat(central).length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}
