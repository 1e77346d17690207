// Shim of @hydraharness/harness-session: a session id is its string, except
// that SPEC §5 rejects a decoded id with a lone surrogate (it cannot be a
// Rust string). The reference decodes through `SessionId` inside its
// try/catch, so throwing here makes such a URI invalid, as the SPEC says.
export function SessionId(value) {
  if (!value.isWellFormed()) {
    throw new TypeError("a session id with a lone surrogate is not valid (SPEC §5)");
  }
  return value;
}
