"""The command line in a child process of its own, without paying a fresh interpreter each time.

The hostile-input tests (tests/test_hostile.py) run `python -m rulespec.cli ARGS` in a child
process, so that CPU and memory limits apply to it alone and a crash or hang cannot take the
test run down. A fresh interpreter spends about 0.2-0.4 s of CPU importing the project before
the command starts: a hundred cases paid that a hundred times. Here one small process (the
zygote) imports the CLI once, and what the commands import after their start (WARM_MODULES,
and Lark's parser); for each run it forks a child, which sets the limits, redirects
its output, and runs the module as `python -m rulespec.cli` would (runpy, `__main__`). The
child is a process of its own as before: its own limits, its own CPU time (reported by wait4),
killed by the kernel at its CPU limit, killed by the zygote past the wall-clock timeout.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SERVER = r'''
import io, json, os, resource, runpy, signal, sys, tempfile, time, traceback
import rulespec.cli                                  # the imports every run shares
for name in WARM_MODULES:                            # and those most runs import later
    try:
        __import__(name)
    except ImportError:                              # an extra not installed (matplotlib)
        pass
import rulespec.parser
rulespec.parser._lark()                              # Lark's parser, its tables read once
proto_in, proto_out = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)                                        # a stray print cannot reach the protocol
devnull = os.open(os.devnull, os.O_RDONLY)
for line in proto_in:
    req = json.loads(line)
    out = tempfile.TemporaryFile()
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:                                     # the child: one command line, then exit
        code = 1
        try:
            os.dup2(devnull, 0); os.dup2(out.fileno(), 1); os.dup2(out.fileno(), 2)
            sys.stdin = open(0, closefd=False)
            sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(open(2, "wb", closefd=False), write_through=True)
            os.environ.clear(); os.environ.update(req["env"])
            os.chdir(req["cwd"])
            mem = req["memory"]
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_CPU, (req["cpu"], req["cpu"] + 1))
            sys.argv = [rulespec.cli.__file__, *req["args"]]
            sys.modules.pop("rulespec.cli")          # run afresh as __main__, as `python -m` does
            try:
                runpy.run_module("rulespec.cli", run_name="__main__", alter_sys=True)
                code = 0
            except SystemExit as e:
                c = e.code
                code = 0 if c is None else c if isinstance(c, int) else (print(c, file=sys.stderr) or 1)
            except BaseException:
                traceback.print_exc()
                code = 1
        finally:
            try:
                sys.stdout.flush(); sys.stderr.flush()
            finally:
                os._exit(code & 0xFF)
    deadline, timed_out = time.monotonic() + req["timeout"], False
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            got, status, usage = os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.005)
    out.seek(0)
    text = out.read().decode("utf-8", "replace")
    out.close()
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    proto_out.write((json.dumps({"code": code, "out": text, "cpu": usage.ru_utime + usage.ru_stime,
                                 "timeout": timed_out}) + "\n").encode())
    proto_out.flush()
'''


# What the commands import after their start (loading and checking a pack, compiling it,
# playing, replaying), imported by the zygote before it forks: each child inherits them instead
# of importing them again (about a third of a child's CPU). What a command does with its input
# is unchanged; only the imports, which no hostile input reaches, are shared.
WARM_MODULES = ["rulespec.pack", "rulespec.schema", "jsonschema", "validator.static", "interpreter.api",
                "interpreter.bots", "interpreter.replay", "interpreter.scenario", "lark", "matplotlib"]


class Result:
    """What subprocess.run would give (returncode, stdout, stderr: the output is in stdout),
    and the child's CPU seconds."""

    def __init__(self, code: int, out: str, cpu: float):
        self.returncode, self.stdout, self.stderr, self.cpu = code, out, "", cpu


class Zygote:
    def __init__(self):
        self.proc = None

    def run(self, args: list, cwd, cpu: int, memory: int, timeout: float) -> Result:
        """`python -m rulespec.cli ARGS` in a forked child within `cpu` seconds of CPU and
        `memory` bytes; subprocess.TimeoutExpired past `timeout` seconds of wall time."""
        if self.proc is None or self.proc.poll() is not None:
            server = f"WARM_MODULES = {WARM_MODULES!r}\n{_SERVER}"
            self.proc = subprocess.Popen([sys.executable, "-c", server], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, cwd=ROOT)
        req = {"args": [str(a) for a in args], "cwd": str(cwd), "cpu": cpu, "memory": memory, "timeout": timeout,
               "env": dict(os.environ)}
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the CLI zygote process ended")
        got = json.loads(line)
        if got["timeout"]:
            raise subprocess.TimeoutExpired(args, timeout, got["out"])
        return Result(got["code"], got["out"], got["cpu"])

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
