// An independent reading of SPEC §3: the native (`hydra`) session store as the
// reference's `ctx.sessionQuery` service (listSessions, readTitleSnapshots,
// readSurface). Written from the SPEC alone, not from the Rust code.
//
// Choices where the SPEC leaves room (each one is also in the report):
// - a line is "parsed" when its bytes are valid UTF-8 and JSON.parse accepts
//   them as they are (a byte order mark is not stripped, so a file that starts
//   with one has no header);
// - `cwd: null` in a header means the file is not a session;
// - createdAt parses when it matches RFC 3339 `date-time` (T/t, Z/z, or a
//   space between date and time); instants compare exactly (all fraction digits);
// - the title is the last line that parses as a session/title event with a
//   string title, whether or not another line makes the session unreadable;
// - two files with the same id: every id lookup (title, surface) resolves to
//   the first of them in record order;
// - an event's envelope is {seq: positive safe integer, strictly increasing,
//   type: string}; see SHAPES for what each known type requires of `data`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// `ignoreBOM: true` keeps a byte order mark, which JSON.parse then rejects.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
// How strict "an event whose fields do not have the shapes above" is, is a
// choice (see the report). This reader, like ours, requires what projection
// and folding use and nothing more: a user message's `source` (an object
// with a string `kind`) and `content` (an array), an assistant message's
// `message.content` (an array), a title's string `title`, a compaction's
// integer `throughSeq`, and an object `data` for those and `tool/result`.
// Ids (`id`, `message.id`, `toolCallId`, `messageId`), `delta` and the
// blocks themselves are not checked: a block that is not
// `{"type":"text","text":S}` is an "other" block, ignored by projection.
// An unknown type needs only a valid seq and type (its data is not read).
// The strict reading would make all of those sessions unreadable.
const isObjectWith = (check) => (d) => isObject(d) && check(d);

/** Field shapes of the known event types (SPEC §3 table); `data` is checked by each. */
const SHAPES = {
  "user/message": isObjectWith(
    (d) => isObject(d.source) && typeof d.source.kind === "string" && Array.isArray(d.content),
  ),
  "assistant/message": isObjectWith((d) => isObject(d.message) && Array.isArray(d.message.content)),
  "tool/result": isObjectWith(() => true),
  "assistant/chunk": () => true,
  "session/title": isObjectWith((d) => typeof d.title === "string"),
  "session/compact": isObjectWith((d) => Number.isSafeInteger(d.throughSeq) && d.throughSeq >= 0),
};

/** Parse one line's bytes: `{ok: true, value}` when UTF-8 and JSON, else `{ok: false}`. */
function parseLine(bytes) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Split file bytes into lines: {bytes, terminated}. A final empty segment is no line. */
function splitLines(buf) {
  const lines = [];
  let start = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) {
      lines.push({ bytes: buf.subarray(start), terminated: false });
      break;
    }
    lines.push({ bytes: buf.subarray(start, nl), terminated: true });
    start = nl + 1;
  }
  return lines;
}

/** Validate an event envelope + shape; returns the event or a reason string. */
export function checkEvent(value) {
  if (!isObject(value)) return "not an object";
  if (!Number.isSafeInteger(value.seq) || value.seq <= 0) return "bad seq";
  if (typeof value.type !== "string") return "bad type";
  const shape = SHAPES[value.type];
  if (shape !== undefined && !shape(value.data)) return `bad ${value.type}`;
  return value;
}

function parseHeader(bytes) {
  const parsed = parseLine(bytes);
  if (!parsed.ok) return undefined;
  const h = parsed.value;
  if (!isObject(h) || h.type !== "session" || h.version !== 1) return undefined;
  if (typeof h.id !== "string" || typeof h.createdAt !== "string") return undefined;
  if (h.cwd !== undefined && typeof h.cwd !== "string") return undefined;
  return { id: h.id, createdAt: h.createdAt, ...(h.cwd === undefined ? {} : { cwd: h.cwd }) };
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(y, m) {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** `{seconds: BigInt, fraction: string}` of an RFC 3339 date-time, or undefined. */
export function parseInstant(text) {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  if (h > 23 || mi > 59 || s > 60) return undefined;
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (oh * 60 + om) * (m[9] === "+" ? 1 : -1);
  }
  const seconds = daysFromCivil(y, mo, d) * 86400n + BigInt(h * 3600 + mi * 60 + s - offset * 60);
  return { seconds, fraction: (m[7] ?? "").replace(/0+$/, "") };
}

function daysFromCivil(y, m, d) {
  const yy = BigInt(m <= 2 ? y - 1 : y);
  const era = (yy >= 0n ? yy : yy - 399n) / 400n;
  const yoe = yy - era * 400n;
  const mp = BigInt((m + 9) % 12);
  const doy = (153n * mp + 2n) / 5n + BigInt(d) - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

function compareInstants(a, b) {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const len = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(len, "0");
  const fb = b.fraction.padEnd(len, "0");
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

function walk(root, out) {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push(path);
  }
}

/** Open native stores; returns the records in record order and the service. */
export function openNativeStores(roots) {
  const files = [];
  for (const root of roots) walk(root, files);
  const records = [];
  for (const path of files) {
    const buf = readFileSync(path);
    const nl = buf.indexOf(0x0a);
    const header = parseHeader(nl < 0 ? buf : buf.subarray(0, nl));
    if (header === undefined) continue;
    records.push({ header, path, instant: parseInstant(header.createdAt) });
  }
  records.sort((a, b) => {
    if (a.instant !== undefined && b.instant !== undefined) {
      const c = compareInstants(b.instant, a.instant);
      if (c !== 0) return c;
    } else if (a.instant !== undefined) return -1;
    else if (b.instant !== undefined) return 1;
    return Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));
  });
  const byId = new Map();
  for (const record of records) if (!byId.has(record.header.id)) byId.set(record.header.id, record);

  const lookup = (id) => {
    const record = byId.get(id);
    if (record === undefined) throw new Error(`unknown session ${JSON.stringify(id)}`);
    return record;
  };

  const readTitle = (record) => {
    const lines = splitLines(readFileSync(record.path)).slice(1);
    let title;
    for (const line of lines) {
      const parsed = parseLine(line.bytes);
      if (!parsed.ok) continue;
      const event = checkEvent(parsed.value);
      if (typeof event === "object" && event.type === "session/title") title = event.data.title;
    }
    return title;
  };

  const readSurface = (record) => {
    const lines = splitLines(readFileSync(record.path));
    let events = [];
    let last = 0;
    for (let i = 1; i < lines.length; i += 1) {
      const line = lines[i];
      const where = `${record.path}:${i + 1}`;
      const parsed = parseLine(line.bytes);
      if (!parsed.ok) {
        if (i === lines.length - 1 && !line.terminated) break;
        throw new Error(`${where}: line does not parse`);
      }
      const event = checkEvent(parsed.value);
      if (typeof event === "string") throw new Error(`${where}: ${event}`);
      if (event.seq <= last) throw new Error(`${where}: seq does not increase`);
      last = event.seq;
      switch (event.type) {
        case "user/message":
        case "assistant/message":
        case "tool/result":
          events.push(event);
          break;
        case "session/compact":
          events = events.filter((e) => e.seq > event.data.throughSeq);
          break;
        default:
          break;
      }
    }
    return {
      session: { id: record.header.id, ...(record.header.cwd === undefined ? {} : { cwd: record.header.cwd }) },
      events,
      capturedThroughSeq: last,
    };
  };

  const sessionQuery = {
    async listSessions() {
      return records.map(({ header, path }) => ({ header, path }));
    },
    async readTitleSnapshots(ids) {
      return Promise.allSettled(
        ids.map(async (id) => {
          const title = readTitle(lookup(id));
          return { title: title === undefined ? undefined : { title } };
        }),
      );
    },
    async readSurface(id) {
      return readSurface(lookup(id));
    },
  };
  return { records, sessionQuery };
}
