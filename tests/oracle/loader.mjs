// Node module hooks for the oracle: map the seed's six non-public
// `@hydraharness/*` imports to local shims, and load the seed file (which has
// no package.json of its own) as an ES module.
const SHIMS = {
  "@hydraharness/schemastery": "schemastery.mjs",
  "@hydraharness/harness-typert-protocol": "typert-protocol.mjs",
  "@hydraharness/harness-llm": "llm.mjs",
  "@hydraharness/harness-compaction": "compaction.mjs",
  "@hydraharness/harness-output-retention": "output-retention.mjs",
  "@hydraharness/harness-session": "session.mjs",
};

let seedUrl;

/** Receives the seed's URL from `register(..., { data })`. */
export async function initialize(data) {
  seedUrl = data?.seedUrl;
}

export async function resolve(specifier, context, next) {
  const shim = SHIMS[specifier];
  if (shim !== undefined) {
    return { url: new URL(`./shims/${shim}`, import.meta.url).href, shortCircuit: true };
  }
  if (specifier.startsWith("@hydraharness/")) {
    throw new Error(`oracle: no shim for ${specifier}`);
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url === seedUrl) {
    return next(url, { ...context, format: "module" });
  }
  return next(url, context);
}
