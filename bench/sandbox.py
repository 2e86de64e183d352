"""The cost of the sandbox on a trivial command (issue 11): `bash -c true` run through
``edgar.sandbox.run`` confined (workspace-write, no network: every layer this machine has)
÷ the same call with ``sandbox = "off"``, median of N (goal ≤ 1.3× and ≤ 15 ms added).
Also shows the old unsandboxed path (asyncio subprocess) and each layer's share.

Run: python bench/sandbox.py [--runs 50]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgar.sandbox import Policy, Sandbox, run  # noqa: E402
from edgar.sandbox.core import Sandbox as _S  # noqa: E402,F401

ARGV = ["bash", "-c", "true"]


async def median_ms(box: Sandbox, root: Path, runs: int) -> float:
    samples = []
    for _ in range(runs + 3):
        start = time.perf_counter()
        done = await run(ARGV, sandbox=box, cwd=root, env=os.environ, timeout=30)
        samples.append(time.perf_counter() - start)
        if done.exit_code != 0:
            raise SystemExit(f"failed: {done}")
    return statistics.median(samples[3:]) * 1000


async def asyncio_ms(root: Path, runs: int) -> float:
    samples = []
    for _ in range(runs + 3):
        start = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *ARGV, cwd=root, start_new_session=True, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        await proc.communicate()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples[3:]) * 1000


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        (root / ".git" / "hooks").mkdir(parents=True)
        (root / ".edgar").mkdir()
        policy = Policy.for_project(root, user_dir=Path(tmp) / "home")
        off = Sandbox(dataclasses.replace(policy, mode="off"))
        box = Sandbox(policy)
        print(f"sandbox layers: {', '.join(l.name for l in box.layers() if l.active)}")
        old = await asyncio_ms(root, runs)
        base = await median_ms(off, root, runs)
        full = await median_ms(box, root, runs)
        print(f"unsandboxed (old asyncio path)   {old:7.2f} ms")
        print(f"unsandboxed (sandbox = off)      {base:7.2f} ms")
        print(f"sandboxed (all layers)           {full:7.2f} ms")
        print(f"ratio sandboxed / unsandboxed    {full / base:7.2f}x   (+{full - base:.2f} ms)")
        print(f"ratio vs old asyncio path        {full / old:7.2f}x   (+{full - old:.2f} ms)")
        plan = box.plan
        if plan is not None:
            for name, change in (("landlock only", dict(user=False, pid=False, mount=False,
                                                         net=False, ro_binds=(), self_binds=())),
                                 ("no network namespace", dict(net=False)),
                                 ("no user namespace", dict(user=False))):
                if name == "no user namespace" and os.geteuid() != 0:
                    continue
                variant = Sandbox(policy)
                variant.plan = dataclasses.replace(plan, **change)
                print(f"  {name:<30} {await median_ms(variant, root, runs):7.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
