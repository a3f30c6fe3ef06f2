#!/usr/bin/env python3
"""Queue a prompt for a session and print the agent's reply as it streams in.

Usage: ask.py SESSION TEXT [IDLE_MS]   (the mirror: $OA_DB, as for oa-repl)

oa-sync, running, delivers the prompt; this script only talks to `oa-repl --jsonl`, and waits
for nothing but its lines: no polling. It ends once the session has been quiet for IDLE_MS
(default 5000) after the prompt was sent.
"""
import json
import subprocess
import sys

session, text = sys.argv[1], sys.argv[2]
idle_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
repl = subprocess.Popen(["oa-repl", "--jsonl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def send(request_id, method, **params):
    request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    repl.stdin.write(json.dumps(request) + "\n")
    repl.stdin.flush()


# Subscribe first, so that nothing of the reply can come before it.
send(1, "events.subscribe", session_id=session, after="now", until_idle_ms=idle_ms)
send(2, "prompt.enqueue", session_id=session, text=text)
prompt = None
for line in repl.stdout:
    message = json.loads(line)
    if "error" in message:
        sys.exit(f"ask.py: {message['error']['message']}")
    if message.get("id") == 2:
        prompt = message["result"]["id"]
    method, params = message.get("method"), message.get("params", {})
    if method == "outbox.changed" and params["outbox_id"] == prompt:
        print(f"[prompt {prompt}: {params['state']}]", file=sys.stderr, flush=True)
    elif method == "events.appended":
        for event in params["events"]:
            if event["kind"] == "agent_message_chunk":
                print(event["text"], end="", flush=True)
    elif method == "events.ended":
        break
print()
send(3, "quit")
repl.wait()
