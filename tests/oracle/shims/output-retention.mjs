// Shim of @hydraharness/harness-output-retention: head/tail retention of
// UTF-8 text with an exact omitted-byte count (SPEC §7 step 3).
const isContinuation = (byte) => (byte & 0xc0) === 0x80;

export class TextRetainer {
  constructor(policy) {
    if (policy.kind !== "headTail") throw new Error(`unsupported retention ${policy.kind}`);
    this.headBytes = policy.headBytes;
    this.tailBytes = policy.tailBytes;
    this.parts = [];
  }

  push(text) {
    this.parts.push(Buffer.from(text, "utf8"));
  }

  finish() {
    const bytes = Buffer.concat(this.parts);
    const length = bytes.length;
    if (length <= this.headBytes + this.tailBytes) {
      return { text: bytes.toString("utf8"), omittedBytes: { kind: "exact", count: 0 } };
    }
    // Head: at most headBytes, cut back to a character boundary.
    let head = Math.min(this.headBytes, length);
    while (head > 0 && head < length && isContinuation(bytes[head])) head -= 1;
    // Tail: at most tailBytes, its start moved forward to a character boundary.
    let tailStart = length - Math.min(this.tailBytes, length);
    while (tailStart < length && isContinuation(bytes[tailStart])) tailStart += 1;
    const text =
      bytes.subarray(0, head).toString("utf8") + bytes.subarray(tailStart).toString("utf8");
    return { text, omittedBytes: { kind: "exact", count: tailStart - head } };
  }
}
