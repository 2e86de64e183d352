"""What a refusal by the sandbox looks like to the model: one ``sandbox: …`` line per cause.

Guarantee: ``explain`` is pure; it adds a line only when the command failed and its output
carries the error the kernel gives for that refusal (EROFS for a protected path, EACCES or
EPERM for a write outside the writable roots, an unreachable network or name service while
the network is off), so an ordinary failure is left alone.
"""

from __future__ import annotations

from edgar.sandbox.policy import Policy

READ_ONLY = ("Read-only file system",)
DENIED = ("Permission denied", "Operation not permitted")
OFFLINE = ("Network is unreachable", "Temporary failure in name resolution",
           "Could not resolve host", "Name or service not known", "No address associated",
           "getaddrinfo failed", "Failed to establish a new network connection",
           "network is unreachable", "Network unreachable")


def explain(output: str, exit_code: int | None, policy: Policy) -> list[str]:
    if not policy.confined or exit_code == 0:
        return []
    lines: list[str] = []
    writable = ", ".join(w for w in policy.writable if not w.startswith("/dev"))
    if any(m in output for m in READ_ONLY):
        lines.append("sandbox: write to edgar's state refused — .edgar/, .git/hooks, "
                     ".git/config and edgar's user dir are read-only to commands")
    if any(m in output for m in DENIED):
        where = "the project" if policy.mode == "workspace-write" else "the temp dirs"
        lines.append(f"sandbox: write outside {where} refused (writable: {writable})"
                     + ("" if policy.network else "; network connections are refused too"))
    if not policy.network and any(m in output for m in OFFLINE):
        lines.append("sandbox: network is off for commands (the person can set "
                     "sandbox.network = true)")
    return lines
