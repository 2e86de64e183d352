"""``wrap(argv, sandbox)``: a command line that runs ``argv`` under the same confinement, for
code that starts processes itself (the mcp SDK's stdio client); and the launcher it names.

Guarantees:
- The launcher (``python -m edgar.sandbox.launch PLAN -- argv…``) rebuilds the Landlock
  ruleset from the plan, enters the namespaces and execs ``argv``; it never runs ``argv``
  unconfined: a setup failure exits 125 with an ``edgar sandbox: …`` line on stderr.
- Without confinement (mode ``off``, nothing available) ``wrap`` returns ``argv`` unchanged;
  with bubblewrap it returns the bwrap command line.
- It costs one Python start (~20 ms) per process: meant for long-lived servers, not for
  each shell call (``run``/``spawn`` confine in the forked child instead).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, replace

from edgar.sandbox.core import Sandbox, carve_out
from edgar.sandbox.ns import MARK, SETUP_FAILED, Plan, enter


def wrap(argv: list[str], sandbox: Sandbox, cwd: str | None = None) -> list[str]:
    if sandbox.backend == "bwrap":
        return sandbox.argv(list(argv), cwd or sandbox.policy.root or os.getcwd())
    if sandbox.plan is None:
        return list(argv)
    plan = asdict(replace(sandbox.plan, landlock_fd=-1))
    spec = {"plan": plan, "landlock": sandbox.ruleset is not None,
            "writable": list(sandbox.policy.writable), "protected": list(sandbox.policy.protected),
            "devices": [d for d in sandbox.policy.devices if os.path.exists(d)],
            "carve": sandbox.backend == "landlock",
            "network": sandbox.policy.network or not (
                sandbox.ruleset is not None and sandbox.ruleset.network_handled)}
    return [sys.executable, "-m", "edgar.sandbox.launch", json.dumps(spec), "--", *argv]


def main(args: list[str]) -> None:
    try:
        spec = json.loads(args[0])
        argv = args[args.index("--") + 1:]
        fields = spec["plan"]
        plan = Plan(user=bool(fields["user"]), pid=bool(fields["pid"]),
                    mount=bool(fields["mount"]), net=bool(fields["net"]),
                    self_binds=tuple(map(str, fields["self_binds"])),
                    ro_binds=tuple(map(str, fields["ro_binds"])),
                    uid=int(fields["uid"]), gid=int(fields["gid"]),
                    nproc=int(fields.get("nproc", 0)), cgroup=str(fields.get("cgroup", "")))
        if spec["landlock"]:
            from edgar.sandbox import landlock

            dirs, files = [], list(spec["devices"])
            for root in spec["writable"]:
                if spec["carve"]:
                    more_dirs, more_files = carve_out(root, tuple(spec["protected"]))
                    dirs += more_dirs
                    files += more_files
                else:
                    dirs.append(root)
            ruleset = landlock.Ruleset.build(dirs, files, network=spec["network"])
            plan = replace(plan, landlock_fd=ruleset.fd)
    except (ValueError, KeyError, TypeError, IndexError, OSError) as exc:
        os.write(2, MARK + f"launcher: {exc}\n".encode())
        os._exit(SETUP_FAILED)
    enter(plan)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, MARK + f"cannot run {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127 if isinstance(exc, FileNotFoundError) else 126)


if __name__ == "__main__":
    main(sys.argv[1:])
