#!/usr/bin/env node
// The oracle: what `session-ref` must print, computed by the REAL reference
// code (the seed's compiled `lib/index.js`, loaded in place) over the native
// store reader of `store.mjs`.
//
//   node tests/oracle/oracle.mjs [session-ref arguments...]   one run; stdin as session-ref reads it
//   node tests/oracle/oracle.mjs --batch < cases.jsonl         one result line per case line
//
// A case line is `{"args": [...], "stdin": "..."?}`; a result line is
// `{"stdout": S, "exit": N, "code": C|null}`. Only the arguments the
// differential test uses are understood: global `--store --session --cwd
// --max-references --candidate-limit --max-reference-bytes`, and the commands
// `candidates [QUERY] [--limit N] --json`, `prepare [TEXT] [--input text|jsonl]
// [--format text|jsonl]`, `preview ID [--label L] --json`, `uri encode ID`,
// `uri decode URI`. Labels made from session text are made safe (SPEC §6,
// `safeLabel`), the one deliberate difference from the reference.
//
// The seed is `../shared/seed/lib/index.js` relative to the repository root,
// or `$ORACLE_SEED_FILE`.
import { register } from "node:module";
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { openNativeStores } from "./store.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..");
const seedPath = process.env.ORACLE_SEED_FILE ?? resolve(repoRoot, "..", "shared", "seed", "lib", "index.js");
const seedUrl = pathToFileURL(seedPath).href;

register(new URL("./loader.mjs", import.meta.url), { data: { seedUrl } });
const seed = await import(seedUrl);
const {
  SessionReferenceError,
  SessionReferenceResolver,
  decodeSessionReferenceUri,
  encodeSessionReferenceUri,
  formatSessionReferenceMention,
} = seed;

/** A usage error (exit 2), as clap would report it. */
class UsageError extends Error {}

const GLOBAL_VALUE_FLAGS = new Set([
  "--store",
  "--session",
  "--cwd",
  "--max-references",
  "--candidate-limit",
  "--max-reference-bytes",
  "--claude",
  "--codex",
]);
const LOCAL_VALUE_FLAGS = new Set(["--limit", "--input", "--format", "--label"]);

/** Split argv into global options, local options and positionals. */
function parseArgs(argv) {
  const globals = { store: [] };
  const locals = {};
  const positionals = [];
  for (let i = 0; i < argv.length; i += 1) {
    let arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "--") {
      positionals.push(arg);
      continue;
    }
    let value;
    const eq = arg.indexOf("=");
    if (eq >= 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const takesValue = GLOBAL_VALUE_FLAGS.has(arg) || LOCAL_VALUE_FLAGS.has(arg);
    if (takesValue && value === undefined) {
      i += 1;
      if (i >= argv.length) throw new UsageError(`${arg} needs a value`);
      value = argv[i];
    }
    const key = arg.slice(2);
    if (!takesValue) locals[key] = true;
    else if (key === "store") globals.store.push(value);
    else if (GLOBAL_VALUE_FLAGS.has(arg)) globals[key] = value;
    else locals[key] = value;
  }
  return { globals, locals, positionals };
}

/** A flag value as the number the reference's config receives. */
function flagNumber(raw) {
  return /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
}

const storeCache = new Map();
function stores(roots) {
  const key = JSON.stringify(roots);
  if (!storeCache.has(key)) storeCache.set(key, openNativeStores(roots));
  return storeCache.get(key);
}

/** A fake Cordis-like context: the session query service and `on`. */
function makeResolver(globals) {
  const opened = stores(globals.store);
  const ctx = { sessionQuery: opened.sessionQuery, on() {} };
  const config = {};
  for (const [flag, key] of [
    ["max-references", "maxReferences"],
    ["candidate-limit", "candidateLimit"],
    ["max-reference-bytes", "maxReferenceBytes"],
  ]) {
    if (globals[flag] !== undefined) config[key] = flagNumber(globals[flag]);
  }
  const resolver = new SessionReferenceResolver(ctx, config);
  const agent = {
    id: globals.session,
    session: { header: { cwd: globals.cwd ?? process.cwd() } },
  };
  return { resolver, agent, records: opened.records };
}

const line = (value) => `${JSON.stringify(value)}\n`;

/**
 * SPEC §6's safe label, session-ref's deliberate difference from the
 * reference (whose titles come from its own host): a label made from
 * session text has every line break, tab and other control character as a
 * space and no bidi control. The identity on ordinary titles, so the
 * comparison stays exact for them; filtering still sees the raw title.
 */
const safeLabel = (label) =>
  label
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ");

async function candidates(globals, locals, positionals) {
  if (!locals.json) throw new UsageError("the oracle compares `candidates --json` only");
  const query = positionals[0] ?? "";
  // A `--limit` that is not a number is rejected with the command line
  // (a usage error, before any configuration is read); its range is the
  // reference's to check.
  if (locals.limit !== undefined && !/^\s*[0-9]+\s*$/.test(locals.limit)) {
    throw new UsageError("--limit takes a whole number");
  }
  const { resolver, agent, records } = makeResolver(globals);
  const limit = locals.limit === undefined ? resolver.config.candidateLimit : Number(locals.limit.trim());
  const listed = await resolver.listCandidates(agent, query, limit);
  // Candidates carry no path; give each the first unused record with its
  // (id, cwd, createdAt) in record order, which is the order they are listed in.
  const used = new Set();
  let out = "";
  for (const candidate of listed) {
    const record = records.find(
      (r) =>
        !used.has(r) &&
        r.header.id === candidate.sessionId &&
        r.header.cwd === candidate.cwd &&
        r.header.createdAt === candidate.createdAt,
    );
    used.add(record);
    const label = safeLabel(candidate.label);
    const mention = formatSessionReferenceMention({ sessionId: candidate.sessionId, label });
    // session-ref adds the session's last activity (UTC, whole seconds):
    // for a native log, whose events carry no time, its createdAt when that
    // parses, else the log's last write.
    const seconds =
      record.instant !== undefined
        ? record.instant.seconds
        : BigInt(Math.floor(statSync(record.path).mtimeMs / 1000));
    const lastActivity = formatUtcSeconds(seconds);
    out += line({ ...candidate, label, mention, agent: "hydra", store: "hydra", path: record.path, lastActivity });
  }
  return out;
}

const messageText = (message) =>
  (Array.isArray(message.content) ? message.content : [])
    .filter((b) => b !== null && typeof b === "object" && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");

async function prepare(globals, locals, positionals, stdin) {
  const input = locals.input ?? "text";
  const format = locals.format ?? "text";
  if (!["text", "jsonl"].includes(input) || !["text", "jsonl"].includes(format)) {
    throw new UsageError("bad --input or --format");
  }
  const { resolver, agent } = makeResolver(globals);
  let raw = positionals[0];
  const fromStdin = raw === undefined;
  if (fromStdin) raw = stdin ?? "";
  let messages;
  if (input === "text") {
    // Text read from stdin loses one trailing newline (as `echo` adds one).
    const text = fromStdin ? raw.replace(/\r?\n$/, "") : raw;
    messages = [{ role: "user", source: { kind: "user" }, content: [{ type: "text", text }] }];
  } else {
    messages = [];
    for (const l of raw.split("\n")) {
      const text = l.endsWith("\r") ? l.slice(0, -1) : l;
      if (text.trim() === "") continue;
      try {
        messages.push(JSON.parse(text));
      } catch {
        throw new SessionReferenceError("input line is not JSON", "SESSION_REFERENCE_INVALID_REFERENCE");
      }
    }
  }
  const prepared = await resolver.prepareDirectMessages(agent, messages, undefined);
  if (format === "jsonl") return prepared.map(line).join("");
  let out = "";
  for (const message of prepared) {
    if (message.source?.kind === "session-reference" && !messages.includes(message)) out += "\n";
    out += `${messageText(message)}\n`;
  }
  return out;
}

async function preview(globals, locals, positionals) {
  if (!locals.json) throw new UsageError("the oracle compares `preview --json` only");
  const { resolver, agent, records } = makeResolver(globals);
  const idOrUri = positionals[0];
  let sessionId = idOrUri.startsWith("hydra-session:") ? decodeSessionReferenceUri(idOrUri) : idOrUri;
  // session-ref's reading of the argument beyond the reference's API (its
  // README, `preview`): an id that is not listed but is the start of
  // exactly one listed id, 4 characters or more, names that session; the
  // start of several is refused.
  const listed = new Set(records.map((r) => r.header.id));
  if (!idOrUri.startsWith("hydra-session:") && !listed.has(sessionId) && [...sessionId].length >= 4) {
    const starting = [...listed].filter((id) => id.startsWith(sessionId));
    if (starting.length > 1) {
      throw new SessionReferenceError("ambiguous id prefix", "SESSION_REFERENCE_INVALID_REFERENCE");
    }
    if (starting.length === 1) sessionId = starting[0];
  }
  let label = locals.label;
  if (label === undefined) {
    const [observation] = await resolver.ctx.sessionQuery.readTitleSnapshots([sessionId]);
    label = safeLabel(observation.status === "fulfilled" ? (observation.value.title?.title ?? sessionId) : sessionId);
  }
  const prepared = await resolver.prepare(agent, [], [{ sessionId, label }]);
  const context = prepared.additionalContext;
  return line({ reference: context.source.references[0], context: context.content[0].text });
}

/**
 * Run one session-ref command line; `{stdout, exit, code}`. The
 * configuration flags are checked first (the resolver is built first), as a
 * command line checks its flags before it does anything.
 */
export async function run(argv, stdin) {
  try {
    const { globals, locals, positionals } = parseArgs(argv);
    const [command, ...rest] = positionals;
    let stdout;
    switch (command) {
      case "candidates":
        stdout = await candidates(globals, locals, rest);
        break;
      case "prepare":
        stdout = await prepare(globals, locals, rest, stdin);
        break;
      case "preview":
        stdout = await preview(globals, locals, rest);
        break;
      case "uri":
        if (rest[0] === "encode") {
          // The resolver is built only to validate the configuration flags.
          makeResolver(globals);
          stdout = `${encodeSessionReferenceUri(rest[1])}\n`;
        } else if (rest[0] === "decode") {
          makeResolver(globals);
          stdout = line(decodeSessionReferenceUri(rest[1]));
        } else throw new UsageError("uri encode|decode");
        break;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
    return { stdout, exit: 0, code: null };
  } catch (error) {
    if (error instanceof UsageError) return { stdout: "", exit: 2, code: null, message: error.message };
    if (error instanceof SessionReferenceError) {
      return { stdout: "", exit: error.code === "SESSION_REFERENCE_CANCELLED" ? 130 : 1, code: error.code, message: error.message };
    }
    // Anything else is a bug in a shim or a case the reference cannot take.
    return { stdout: "", exit: -1, code: "ORACLE_INTERNAL", message: String(error?.stack ?? error) };
  }
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === "--batch") {
    const input = readFileSync(0, "utf8");
    let out = "";
    for (const text of input.split("\n")) {
      if (text.trim() === "") continue;
      const c = JSON.parse(text);
      out += line(await run(c.args, c.stdin));
    }
    process.stdout.write(out);
    return;
  }
  const needsStdin = argv.includes("prepare") && !argv.includes("--batch");
  const stdin = needsStdin && !process.stdin.isTTY ? readFileSync(0, "utf8") : undefined;
  const result = await run(argv, stdin);
  process.stdout.write(result.stdout);
  if (result.exit !== 0) {
    process.stderr.write(`session-ref: ${result.code ?? "usage"}: ${result.message}\n`);
    process.exitCode = result.exit < 0 ? 3 : result.exit;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}

/** `seconds` since the epoch as `YYYY-MM-DDTHH:MM:SSZ`, as session-ref
 *  writes it (Rust's `{:04}` for the year, its sign counted in the width). */
function formatUtcSeconds(seconds) {
  const days = seconds >= 0n ? seconds / 86400n : -((-seconds + 86399n) / 86400n);
  const ofDay = seconds - days * 86400n;
  const z = days + 719468n;
  const era = (z >= 0n ? z : z - 146096n) / 146097n;
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = doy - (153n * mp + 2n) / 5n + 1n;
  const m = mp < 10n ? mp + 3n : mp - 9n;
  const y = yoe + era * 400n + (m <= 2n ? 1n : 0n);
  const pad = (n, w) => String(n).padStart(w, "0");
  const year = y < 0n ? "-" + pad(-y, 3) : pad(y, 4);
  const h = ofDay / 3600n;
  const mi = (ofDay / 60n) % 60n;
  const sec = ofDay % 60n;
  return `${year}-${pad(m, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}Z`;
}
