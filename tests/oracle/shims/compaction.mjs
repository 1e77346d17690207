// Shim of @hydraharness/harness-compaction: the compact checkpoint marker (SPEC §2).
export const COMPACTION_MARKER = "@hydraharness/harness-compaction";

export function isCompactCheckpointSource(source) {
  return (
    typeof source === "object" &&
    source !== null &&
    source.kind === "compaction" &&
    source.marker === COMPACTION_MARKER
  );
}
