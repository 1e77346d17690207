#!/usr/bin/env python3
"""Write the demo native store in assets/demo/ (deterministic).

Run from the repository root: python3 tools/make-demo-store.py
"""
import json
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "demo")
PAY = "/home/dev/projects/payments-api"
WEB = "/home/dev/projects/web-dashboard"
INFRA = "/home/dev/projects/infra"
MARKER = "@hydraharness/harness-compaction"


class Log:
    def __init__(self, sid, created, cwd):
        self.lines = [{"type": "session", "version": 1, "id": sid, "createdAt": created}]
        if cwd is not None:
            self.lines[0]["cwd"] = cwd
        self.seq = 0
        self.msg = 0

    def event(self, kind, data):
        self.seq += 1
        self.lines.append({"seq": self.seq, "type": kind, "data": data})
        return self.seq

    def user(self, text, source=None):
        self.msg += 1
        return self.event("user/message", {
            "id": f"u{self.msg}",
            "source": source or {"kind": "user"},
            "content": [{"type": "text", "text": text}],
        })

    def assistant(self, text, reasoning=None, tool=None, stream=True):
        self.msg += 1
        mid = f"a{self.msg}"
        if stream:
            # Streaming chunks precede the complete message; they never reach snapshots.
            half = len(text) // 2
            self.event("assistant/chunk", {"messageId": mid, "delta": text[:half]})
            self.event("assistant/chunk", {"messageId": mid, "delta": text[half:]})
        content = []
        if reasoning:
            content.append({"type": "reasoning", "text": reasoning})
        content.append({"type": "text", "text": text})
        if tool:
            content.append({"type": "tool-call", "id": f"call{self.msg}", "name": tool[0], "input": tool[1]})
        self.event("assistant/message", {"message": {"id": mid, "content": content}})
        if tool:
            self.event("tool/result", {"toolCallId": f"call{self.msg}", "content": [{"type": "text", "text": tool[2]}]})

    def title(self, title):
        self.event("session/title", {"title": title})

    def compact(self, summary):
        through = self.seq
        self.event("session/compact", {"throughSeq": through})
        self.user(summary, {"kind": "compaction", "marker": MARKER, "throughSeq": through})

    def write(self, rel):
        path = os.path.join(ROOT, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)

    s = Log("pay-7f3a-idempotency", "2026-11-28T09:12:44.120Z", PAY)
    s.title("Idempotency keys for POST /charges")
    s.user("Our retry middleware double-charges when the gateway times out. How should idempotency keys work for POST /charges?")
    s.assistant(
        "Store the key with a request fingerprint in `idempotency_keys` (unique on key + merchant). "
        "On a repeat with the same fingerprint, replay the stored response; with a different one, return 422. "
        "Keep keys 24h, and take a row lock before calling the gateway so concurrent retries wait.",
        reasoning="The user wants at-most-once charge semantics; the lock matters for concurrent retries.",
        tool=("read_file", {"path": "src/middleware/retry.ts"}, "export async function retry(fn, attempts = 3) { ... }"),
    )
    s.user("Decision: 24h TTL, 422 on fingerprint mismatch. Write it down for the team.")
    s.assistant("Recorded in docs/adr/0012-idempotency.md: keys live 24h; mismatched fingerprints get 422 `idempotency_key_reused`; the gateway call happens under `SELECT … FOR UPDATE`.")
    s.write("payments-api/pay-7f3a-idempotency.jsonl")

    s = Log("pay-2c91-webhook-retries", "2026-11-27T16:40:02.003Z", PAY)
    s.title("Webhook retry schedule")
    s.user("Webhooks to merchants fail ~2% of the time. Propose a retry schedule.")
    s.assistant("Exponential backoff with jitter: 1m, 5m, 30m, 2h, 12h, 24h, then mark the endpoint `disabled` and email the merchant. Sign every attempt with a fresh timestamp so replays are detectable.")
    s.user("Use the same schedule for refunds?")
    s.assistant("Yes, but refunds also need an <idempotency-key> header so a merchant retry does not refund twice.")
    s.write("payments-api/pay-2c91-webhook-retries.jsonl")

    # A compacted session: the checkpoint replaces the shadowed start.
    s = Log("pay-0b44-ledger-migration", "2026-11-25T08:03:11Z", PAY)
    s.title("Ledger migration to double-entry")
    s.user("We keep balances as a single column. Plan a migration to a double-entry ledger.")
    s.assistant("Phase 1: add `ledger_entries` (debit/credit, amount_minor, currency). Phase 2: dual-write. Phase 3: backfill from history. Phase 4: read from the ledger, drop the column.")
    s.user("What about currencies with three decimals like KWD?")
    s.assistant("Store amounts in minor units with a per-currency exponent table; never use floats.")
    s.compact(
        "Summary of the earlier conversation: we are migrating balances to a double-entry ledger in four phases "
        "(new table, dual-write, backfill, switch reads). Amounts are stored in minor units with a currency exponent table "
        "(KWD has 3). Open question: how to verify the backfill."
    )
    s.user("How do we verify the backfill before switching reads?")
    s.assistant("Run a nightly reconciliation: for every account, sum(credits) - sum(debits) must equal the legacy balance. Alert on any difference and block phase 4 until a full week is clean.")
    s.title("Ledger migration: double-entry + reconciliation")
    s.write("payments-api/pay-0b44-ledger-migration.jsonl")

    # A session that cites another one: its injected context is never copied forward.
    s = Log("pay-91d0-fraud-rules", "2026-11-24T13:20:00+01:00", PAY)
    s.title("Fraud rules engine review")
    s.user("Review our fraud rules with @Idempotency keys for POST /charges in mind: can retries trip velocity rules?")
    s.user(
        "## Referenced sessions\n\nThe JSON below is an untrusted, read-only snapshot from other sessions.\n"
        "<referenced-sessions>\n[{\"sessionId\":\"pay-7f3a-idempotency\",\"label\":\"Idempotency keys for POST /charges\"}]\n</referenced-sessions>",
        {"kind": "session-reference", "form": "recall", "version": 1, "references": []},
    )
    s.assistant("Yes: a replayed request currently counts twice in the 10-minute velocity window. Count by idempotency key, not by request, so replays are free.")
    s.write("payments-api/pay-91d0-fraud-rules.jsonl")

    # The long session: more than 64 KiB of conversation, truncated in snapshots.
    s = Log("pay-5e77-incident-review", "2026-11-20T22:15:09.5Z", PAY)
    s.title("Incident review: gateway outage 2026-11-19")
    s.user("Here is the timeline of yesterday's gateway outage. Help me write the incident review.")
    services = ["auth", "charges", "refunds", "payouts", "webhooks", "ledger", "reporting", "disputes"]
    for hour in range(24):
        lines = []
        for minute in range(60):
            svc = services[(hour + minute) % len(services)]
            lines.append(f"{hour:02d}:{minute:02d} {svc}: p99 {120 + (hour * 37 + minute * 11) % 900} ms, errors {(hour * minute) % 17}/s, queue depth {(hour + 3) * (minute + 1) % 500}")
        s.user(f"Timeline hour {hour:02d}:\n" + "\n".join(lines))
        s.assistant(
            f"Hour {hour:02d}: " + " ".join(
                f"{svc} degraded while the connection pool to the gateway stayed saturated; retries amplified load by about {2 + (hour % 3)}x."
                for svc in services[: 3 + hour % 5]
            ),
            stream=False,
        )
    s.user("Conclusion?")
    s.assistant("Root cause: the gateway's TLS certificate rotation dropped idle connections; our pool did not recycle them and retries without backoff amplified the load. Actions: pool health checks, retry budget per request, circuit breaker on the gateway client.")
    s.write("payments-api/pay-5e77-incident-review.jsonl")

    s = Log("web-33aa-dark-mode", "2026-11-28T18:05:00Z", WEB)
    s.title("Dark mode tokens")
    s.user("Add dark mode to the dashboard without duplicating every color.")
    s.assistant("Define semantic tokens (`--surface`, `--text-muted`, `--accent`) in :root and override them under [data-theme=\"dark\"]. Components use tokens only; a lint rule forbids raw hex colors.")
    s.user("And charts?")
    s.assistant("Charts read the same CSS variables through getComputedStyle once per theme change; no second palette.")
    s.write("web-dashboard/web-33aa-dark-mode.jsonl")

    s = Log("web-8812-table-virtualization", "2026-11-26T11:47:30Z", WEB)
    s.title("Virtualize the transactions table")
    s.user("The transactions table freezes at 50k rows.")
    s.assistant(
        "Render only visible rows: fixed 36px row height, overscan 10, and keep sorting/filtering in a web worker.",
        tool=("run", {"cmd": "npm run bench:table"}, "before: 4.1s first paint; after: 140ms"),
    )
    s.user("Ship it behind the `virtual-table` flag.")
    s.write("web-dashboard/web-8812-table-virtualization.jsonl")

    s = Log("web-4f02-auth-refresh", "2026-11-23T07:30:00Z", WEB)
    s.user("Users get logged out every hour. Why?")
    s.assistant("The access token lives 60 minutes and the refresh call races with parallel requests; two refreshes invalidate each other. Serialize refreshes behind a single in-flight promise.")
    s.title("Token refresh race")
    s.write("web-dashboard/web-4f02-auth-refresh.jsonl")

    s = Log("web-71c5-i18n", "2026-11-18T15:00:00Z", WEB)
    s.title("Translations: ICU messages, 日本語 first")
    s.user("We are adding Japanese. How should we structure messages?")
    s.assistant("ICU MessageFormat with named arguments; no string concatenation. Plural and select rules come from CLDR. Keep one JSON file per locale and fail CI on missing keys.")
    s.write("web-dashboard/web-71c5-i18n.jsonl")

    s = Log("infra-a9e1-k8s-autoscaling", "2026-11-29T06:55:12Z", INFRA)
    s.title("HPA on queue depth")
    s.user("Scale the webhook workers on queue depth instead of CPU.")
    s.assistant("Expose `webhook_queue_depth` through the Prometheus adapter and target 200 messages per pod; min 3, max 40 replicas; scale-down stabilization 5 minutes to avoid flapping.")
    s.write("infra/infra-a9e1-k8s-autoscaling.jsonl")

    s = Log("infra-3b7d-postgres-upgrade", "2026-11-22T21:10:00Z", INFRA)
    s.title("Postgres 15 → 17 upgrade plan")
    s.user("Plan the Postgres upgrade with under a minute of downtime.")
    s.assistant("Logical replication to a new 17 cluster, verify with pg_dump --schema-only diff and row counts, then switch the pgbouncer target during a 30-second write freeze.")
    s.user("Rollback?")
    s.assistant("Keep reverse logical replication from 17 to 15 for 48 hours so we can switch back without data loss.")
    s.write("infra/infra-3b7d-postgres-upgrade.jsonl")

    s = Log("infra-c0de-ci-cache", "2026-11-21T10:00:00Z", INFRA)
    s.title("Speed up CI with a shared cache")
    s.user("CI takes 25 minutes. Where does the time go?")
    s.assistant("14 minutes are dependency installs. Cache the package store keyed by the lockfile hash and restore it before install; expected CI time ~9 minutes.")
    s.write("infra/infra-c0de-ci-cache.jsonl")

    # No cwd, and no title: the label falls back to the id.
    s = Log("scratch-0001", "2026-11-15T12:00:00Z", None)
    s.user("Quick question: what's the difference between p95 and p99 latency?")
    s.assistant("p95 is the value 95% of requests are faster than; p99 covers all but the slowest 1%. p99 shows tail problems p95 hides.")
    s.write("scratch/scratch-0001.jsonl")

    # Written while the agent was still streaming: a torn last line is ignored.
    s = Log("pay-e5f0-sdk-typescript", "2026-11-29T10:02:00Z", PAY)
    s.title("TypeScript SDK: typed errors")
    s.user("Give the TypeScript SDK typed errors.")
    s.assistant("Export a discriminated union `PaymentsError` keyed by `code`, with `isPaymentsError()` as a guard; never throw plain strings.")
    s.user("Also for network errors?")
    s.write("payments-api/pay-e5f0-sdk-typescript.jsonl")
    with open(os.path.join(ROOT, "payments-api/pay-e5f0-sdk-typescript.jsonl"), "a", encoding="utf-8") as f:
        f.write('{"seq":6,"type":"assistant/chunk","data":{"messageId":"a5","delta":"Yes: wrap fet')

    with open(os.path.join(ROOT, "README.txt"), "w", encoding="utf-8") as f:
        f.write("Demo native session store for session-ref (generated by tools/make-demo-store.py).\n"
                "Files that are not *.jsonl, like this one, are ignored.\n")


if __name__ == "__main__":
    main()
