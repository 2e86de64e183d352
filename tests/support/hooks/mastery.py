"""Hooks equivalent to disler/claude-code-hooks-mastery's ``.claude/hooks/*.py`` (that
repository has no licence, so its scripts are not copied): ``mastery.py EVENT`` reads the
same fields its hook for EVENT reads, does what it does, and logs its input to
``logs/EVENT.json`` under the working directory as they do.

PreToolUse: exit 2 when Read/Edit/MultiEdit/Write's ``tool_input.file_path`` or a Bash
``tool_input.command`` touches ``.env`` (not ``.env.sample``), or Bash runs ``rm -rf``.
Every other event only logs.
"""

import json
import re
import sys
from pathlib import Path

event = sys.argv[1]
data = json.load(sys.stdin)
tool, given = data.get("tool_name", ""), data.get("tool_input", {})
if event == "PreToolUse":
    path = given.get("file_path", "") if tool in ("Read", "Edit", "MultiEdit", "Write") else ""
    command = given.get("command", "") if tool == "Bash" else ""
    if (".env" in path and not path.endswith(".env.sample")) or re.search(
            r"\.env\b(?!\.sample)", command):
        print("BLOCKED: Access to .env files containing sensitive data is prohibited",
              file=sys.stderr)
        sys.exit(2)
    if re.search(r"\brm\s+.*-[a-z]*r[a-z]*f|\brm\s+.*-[a-z]*f[a-z]*r", command.lower()):
        print("BLOCKED: Dangerous rm command detected and prevented", file=sys.stderr)
        sys.exit(2)
log = Path.cwd() / "logs" / f"{event}.json"
log.parent.mkdir(parents=True, exist_ok=True)
seen = json.loads(log.read_text()) if log.exists() else []
log.write_text(json.dumps([*seen, data], indent=2))
