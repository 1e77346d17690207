// Shim of @hydraharness/harness-llm: the user-message shape of SPEC §8.
export function assertNever(value, what) {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

/** `{role:"user", source, content}`, in that key order. */
export function createUserMessage({ source, content }) {
  return freezeMessage({ role: "user", source, content });
}

/** Deep-freeze a message and return it. */
export function freezeMessage(message) {
  const freeze = (value) => {
    if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
      Object.freeze(value);
      for (const key of Object.keys(value)) freeze(value[key]);
    }
    return value;
  };
  return freeze(message);
}
