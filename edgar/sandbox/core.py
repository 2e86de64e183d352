"""A ``Sandbox``: one policy joined to the layers this machine can enforce.

Guarantees:
- Built once per session (``Sandbox(policy)``); the Landlock ruleset and the mount plan are
  computed here, in edgar, so each command only pays for fork, namespaces and exec.
- Layers, richest first: namespaces (user, PID + fresh /proc, mount with read-only binds,
  network) plus Landlock; else bubblewrap when installed; else Landlock alone (the project
  root's own directory then refuses new entries, so ``.edgar``/``.git`` stay protected);
  else nothing — and ``layers()``/``warning()`` say so, loudly, unless the mode is ``off``.
- ``active`` is False only when nothing confines the command.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from edgar.sandbox import landlock
from edgar.sandbox.ns import Plan, enter
from edgar.sandbox.policy import Policy
from edgar.sandbox.probe import Capabilities, capabilities


@dataclass(frozen=True, slots=True)
class Layer:
    """One confinement mechanism and whether it is in force."""

    name: str
    active: bool
    detail: str


class Sandbox:
    """Runs commands under ``policy`` with whatever this machine offers."""

    def __init__(self, policy: Policy, caps: Capabilities | None = None):
        self.policy = policy
        self.caps = capabilities() if caps is None and policy.confined else (
            caps or Capabilities())
        self.backend = "none"
        self.plan: Plan | None = None
        self.ruleset: landlock.Ruleset | None = None
        self.carved = False
        self.cgroup: str | None = None
        if policy.confined:
            self._choose()

    def _choose(self) -> None:
        caps, policy = self.caps, self.policy
        if caps.namespaces is not None:
            self.backend = "native"
            ns = caps.namespaces
            binds = policy.protected_inside() if ns.mount else []
            self.plan = replace(ns, net=ns.net and not policy.network, ro_binds=tuple(binds),
                                self_binds=tuple(policy.anchors()) if binds else ())
            self.ruleset = self._landlock(carve=False, handle_net=not ns.net)
        elif caps.bwrap is not None:
            self.backend = "bwrap"
        elif caps.landlock_abi >= 1:
            self.backend = "landlock"
            self.ruleset = self._landlock(carve=True, handle_net=True)
            self.plan = Plan()
        if self.ruleset is not None and self.plan is not None:
            self.plan = replace(self.plan, landlock_fd=self.ruleset.fd)
        if self.plan is not None and policy.max_processes > 0:
            self._limit(policy.max_processes)

    def _limit(self, limit: int) -> None:
        """A pids cgroup where this user may make one, else RLIMIT_NPROC in the user namespace
        (the kernel counts that namespace's processes there; not for uid 0, which it exempts)."""
        assert self.plan is not None
        from edgar.sandbox import pids

        self.cgroup = pids.make(limit)
        if self.cgroup is not None:
            import atexit

            atexit.register(pids.remove, self.cgroup)
            self.plan = replace(self.plan, cgroup=self.cgroup)
        elif self.plan.user and self.plan.uid != 0:
            self.plan = replace(self.plan, nproc=limit)

    def _landlock(self, *, carve: bool, handle_net: bool) -> landlock.Ruleset | None:
        if self.caps.landlock_abi < 1:
            return None
        dirs: list[str] = []
        files = [d for d in self.policy.devices if os.path.exists(d)]
        for root in self.policy.writable:
            if carve:
                found_dirs, found_files = carve_out(root, self.policy.protected)
                self.carved = self.carved or found_dirs != [root]
                dirs += found_dirs
                files += found_files
            else:
                dirs.append(root)
        network = self.policy.network or not handle_net
        try:
            return landlock.Ruleset.build(dirs, files, network=network)
        except OSError:
            return None

    @property
    def active(self) -> bool:
        return self.backend != "none"

    @property
    def kills_all(self) -> bool:
        """Whether every descendant dies with the command (a PID namespace)."""
        return bool(self.plan and self.plan.pid) or self.backend == "bwrap"

    def preexec(self) -> Callable[[], None] | None:
        plan = self.plan
        if plan is None or (not plan.flags and plan.landlock_fd < 0):
            return None
        return lambda: enter(plan)

    def argv(self, argv: list[str], cwd: str) -> list[str]:
        """``argv`` as it must be executed (bubblewrap prefixes it)."""
        if self.backend != "bwrap" or self.caps.bwrap is None:
            return argv
        from edgar.sandbox.bwrap import command

        return command(self.caps.bwrap, self.policy, argv, cwd)

    def layers(self) -> list[Layer]:
        if not self.policy.confined:
            return [Layer("sandbox", False, 'off (sandbox = "off")')]
        plan, caps = self.plan or Plan(), self.caps
        rs = self.ruleset
        out = []
        if self.backend == "bwrap":
            out.append(Layer("bubblewrap", True, f"{caps.bwrap}: PID, mount"
                             + ("" if self.policy.network else ", network") + " namespaces"))
        if rs is not None:
            what = "writes only in the project and temp dirs" if self.policy.mode == (
                "workspace-write") else "writes only in temp dirs"
            if self.carved:
                what += " (no new entries directly in the project root)"
            if rs.network_handled:
                what += "; TCP connect/bind refused"
            out.append(Layer("landlock", True, f"ABI {rs.version}: {what}"))
        elif caps.landlock_abi < 1:
            out.append(Layer("landlock", False, "not available on this kernel"))
        if self.backend == "native":
            out.append(Layer("user namespace", plan.user, "no capability outside it"
                             if plan.user else "not used (needs unprivileged user namespaces)"))
            out.append(Layer("pid namespace", plan.pid, "fresh /proc; every descendant dies "
                             "with the command" if plan.pid else "unavailable"))
            out.append(Layer("mount namespace", plan.mount, "read-only: " + (
                ", ".join(self._short(p) for p in plan.ro_binds) or "nothing to protect")
                if plan.mount else "unavailable"))
        elif self.backend != "bwrap":
            out.append(Layer("pid namespace", False, "unavailable: a command's background "
                             "processes are killed by process group only"))
            out.append(Layer("mount namespace", False, "unavailable: a fresh /proc and "
                             "read-only binds need it"))
        limit = self.policy.max_processes
        if self.cgroup is not None:
            out.append(Layer("process limit", True, f"{limit} processes (pids cgroup)"))
        elif plan.nproc:
            out.append(Layer("process limit", True, f"{limit} processes per command "
                             "(RLIMIT_NPROC in its user namespace)"))
        else:
            out.append(Layer("process limit", False, "none (no pids cgroup this user may make, "
                             "no user namespace to count in)"))
        net_layer = plan.net or (self.backend == "bwrap")
        if self.policy.network:
            out.append(Layer("network", False, "open (sandbox.network = true)"))
        else:
            out.append(Layer("network namespace", net_layer,
                             "no network" if net_layer else "unavailable"))
        if not self.active:
            out.append(Layer("sandbox", False, "NOTHING confines commands here: "
                             + "; ".join(caps.why_not)))
        return out

    def _short(self, path: str) -> str:
        root = self.policy.root
        if root and path.startswith(root.rstrip("/") + "/"):
            return path[len(root.rstrip("/")) + 1:]
        return path

    def warning(self) -> str | None:
        """One line for the first command of a session when confinement is missing or weak."""
        if not self.policy.confined:
            return None
        if not self.active:
            return ("sandbox: nothing confines commands on this machine ("
                    + "; ".join(self.caps.why_not) + '); set sandbox.mode = "off" to silence this')
        missing = [layer.name for layer in self.layers() if not layer.active
                   and layer.name not in ("network", "process limit")]
        if missing:
            return f"sandbox: partial — missing {', '.join(missing)} (edgar doctor says more)"
        return None

    def close(self) -> None:
        if self.ruleset is not None:
            self.ruleset.close()
        if self.cgroup is not None:
            from edgar.sandbox import pids

            pids.remove(self.cgroup)


def carve_out(root: str, protected: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(directories, files) that grant ``root`` minus every protected path beneath it,
    for Landlock alone, whose grants always cover a whole tree."""
    inside = [p for p in protected if p.startswith(root.rstrip("/") + "/")]
    if not inside:
        return [root], []
    dirs: list[str] = []
    files: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return [], []
    for name in names:
        path = os.path.join(root, name)
        if path in protected or os.path.islink(path):
            continue  # a link's grant would land on its target, wherever that is
        if any(p.startswith(path + "/") for p in inside):
            sub_dirs, sub_files = carve_out(path, protected)
            dirs += sub_dirs
            files += sub_files
        elif os.path.isdir(path) and not os.path.islink(path):
            dirs.append(path)
        else:
            files.append(path)
    return dirs, files
