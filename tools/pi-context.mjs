// The conversation pi 0.73.1 itself builds for each session file (its
// SessionManager.buildSessionContext), for tools/check-pi-context.sh to
// compare with session-ref's preview. Needs the npm package (AG, default
// /work/agents).
// For each pi session file given, print the conversation pi itself would
// send the model (buildSessionContext), as [role, text] pairs: user and
// assistant text, compaction summaries as "checkpoint".
const AG = process.env.AG ?? "/work/agents";
const { SessionManager } = await import(`${AG}/node_modules/@mariozechner/pi-coding-agent/dist/index.js`);
for (const file of process.argv.slice(2)) {
  const sm = SessionManager.open(file);
  const ctx = sm.buildSessionContext();
  const out = [];
  for (const m of ctx.messages) {
    const text = (c) => typeof c === "string" ? c : c.filter((b) => b.type === "text").map((b) => b.text).join("\n");
    if (m.role === "user") out.push(["user", text(m.content)]);
    else if (m.role === "assistant") { const t = text(m.content); if (t) out.push(["assistant", t]); }
    else if (m.role === "compactionSummary") out.push(["checkpoint", m.summary]);
  }
  console.log(JSON.stringify({ id: sm.getSessionId(), conversation: out }));
}
