"""A hook command for tests: ``hook.py MODE [ARG]``. Every mode first appends the JSON it
got on stdin to ``$CLAUDE_PROJECT_DIR/hook-log.jsonl``.

record      exit 0
block       print ARG on stderr, exit 2
json-block  print {"decision": "block", "reason": ARG}, exit 0
deny        print hookSpecificOutput.permissionDecision = deny, exit 0
hang        sleep an hour
flood       print 10 MB on stdout and stderr, exit ARG
exit        print "exiting ARG" on stderr, exit ARG
block-once  like block while stop_hook_active is false; then exit 0
print       print ARG on stdout (JSON or plain text), exit 0
print-exit  print ARG3 on stdout, exit ARG (``hook.py print-exit 1 '{…}'``)
"""

import json
import os
import sys
import time

data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hook-log.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\n")
mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""
if mode == "block" or (mode == "block-once" and not data.get("stop_hook_active")):
    print(arg, file=sys.stderr)
    sys.exit(2)
if mode == "json-block":
    print(json.dumps({"decision": "block", "reason": arg}))
elif mode == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecision": "deny",
                                             "permissionDecisionReason": arg}}))
elif mode == "hang":
    time.sleep(3600)
elif mode == "flood":
    chunk = "y" * 1024 * 1024
    for _ in range(10):
        sys.stdout.write(chunk)
        sys.stderr.write(chunk)
    sys.exit(int(arg))
elif mode == "exit":
    print(f"exiting {arg}", file=sys.stderr)
    sys.exit(int(arg))
elif mode == "print":
    print(arg)
elif mode == "print-exit":
    print(sys.argv[3])
    print("said on stderr", file=sys.stderr)
    sys.exit(int(arg))
