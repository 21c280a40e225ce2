"""Faults around a run, driven through the command line as a user meets them (issue 24).

Every case runs ``fairnet`` as a subprocess and asserts its exit code, the first line of what it
says, and that nothing already finished was lost. Interrupts are sent to the process group, as
a terminal's Ctrl-C is, and only once the run's own progress output shows it is under way (the
progress interval is cut to 0.2 s through ``FAIRNET_PROGRESS_INTERVAL``); no case waits a fixed
time. Scenarios are smoke-sized: a "long" run is one that would take minutes and is stopped
within a second or two.
"""

from __future__ import annotations

import json
import os
import queue
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

FAIRNET = [sys.executable, "-m", "fairnet.cli"]
#: A guard against a hung child, never an expectation of speed.
GUARD_S = 180

QUICK = """
name = "quick"
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "websearch"
load = 0.5
flows = 200
[engine]
kind = "flow"
"""

#: 100,000 web-search flows at the packet level: minutes of work, stopped long before.
LONG_OVERRIDES = {"workload.flows": 100_000, "engine.kind": "packet"}


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "FAIRNET_PROGRESS_INTERVAL": "0.2", **extra}


def run(*args: str, cwd: Path | None = None, **popen: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*FAIRNET, *args], capture_output=True, text=True, env=_env(), cwd=cwd, **popen
    )


def first_error(stderr: str) -> str:
    """The first line of stderr, which must be the whole message (no traceback)."""
    assert "Traceback" not in stderr, stderr
    return stderr.strip().splitlines()[0]


class Child:
    """A ``fairnet`` process in its own process group, its stderr read line by line."""

    def __init__(self, *args: str, preexec: Callable[[], None] | None = None) -> None:
        def setup() -> None:
            # A shell's background job ignores SIGINT and children inherit that; restore it.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if preexec is not None:
                preexec()

        self.proc = subprocess.Popen(
            [*FAIRNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
            start_new_session=True,
            preexec_fn=setup,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first stderr line matching ``pattern`` (the run's own progress output)."""
        while True:
            line = self.lines.get(timeout=GUARD_S)
            assert line is not None, "exited before printing " + pattern + "\n" + "".join(
                self.stderr
            )
            self.stderr.append(line)
            m = re.search(pattern, line)
            if m:
                return m

    def ctrl_c(self) -> None:
        """SIGINT to the whole process group, as a terminal sends it."""
        os.killpg(self.proc.pid, signal.SIGINT)

    def finish(self) -> tuple[int, str, str]:
        """Exit code, stdout and all of stderr."""
        stdout = self.proc.stdout.read() if self.proc.stdout else ""
        self.proc.wait(timeout=GUARD_S)
        while (line := self.lines.get(timeout=GUARD_S)) is not None:
            self.stderr.append(line)
        return self.proc.returncode, stdout, "".join(self.stderr)


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "quick.toml"
    path.write_text(QUICK)
    return path


def _sweep_file(tmp_path: Path, points: list[dict[str, object]], extra: str = "") -> Path:
    _scenario(tmp_path)
    body = 'base = "quick.toml"\n' + extra
    for p in points:
        body += "[[points]]\n" + "".join(f'"{k}" = {json.dumps(v)}\n' for k, v in p.items())
    path = tmp_path / "sweep.toml"
    path.write_text(body)
    return path


def _table(outdir: Path) -> dict[object, dict]:
    """sweep.parquet's rows by the point's ``workload.flows``."""
    table = pl.read_parquet(outdir / "sweep.parquet")
    return {row["workload.flows"]: row for row in table.iter_rows(named=True)}


# --- Ctrl-C and resuming ----------------------------------------------------------------------


def test_ctrl_c_on_a_packet_run_before_any_flow_finished(tmp_path: Path) -> None:
    # Progress shows simulated time against stop_at with an ETA while no flow has finished;
    # Ctrl-C then writes the (empty-handed) run, marked interrupted, and exits 130.
    out = tmp_path / "out"
    child = Child(
        "run",
        str(_scenario(tmp_path)),
        "-o",
        str(out),
        "--set",
        "workload.flows=100000",
        "--set",
        "engine.kind='packet'",
        "--set",
        "stop_at='5s'",
    )
    m = child.wait_for(
        r"progress: ([\d,]+)/100,000 flows finished, [\d.]+ ms of 5000\.000 ms simulated, "
        r".*ETA (\d|unknown)"
    )
    assert m is not None
    child.ctrl_c()
    code, stdout, _ = child.finish()
    assert code == 130
    assert stdout.splitlines()[0].startswith("interrupted: wrote the ")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] and summary["partial"]
    assert pl.read_parquet(out / "flows.parquet").height == 100_000
    assert all((out / name).is_file() for name in summary["files"])


def test_ctrl_c_on_a_sweep_then_resume(tmp_path: Path) -> None:
    # Three points on one worker: a quick one, a long one, a quick one. Ctrl-C while the long
    # one runs: it stops and keeps its partial outputs, the third never starts, sweep.parquet
    # has every point's status, exit 130. The resumed sweep counts only the first as done.
    path = _sweep_file(
        tmp_path,
        [{"workload.flows": 200}, LONG_OVERRIDES, {"workload.flows": 300}],
    )
    out = tmp_path / "out"
    child = Child("sweep", str(path), "-o", str(out), "--workers", "1")
    child.wait_for(r"progress: 1/3 runs finished, 1 running")
    child.wait_for(r"progress: 1/3 runs finished, 1 running")  # the long run is under way
    child.ctrl_c()
    code, stdout, stderr = child.finish()
    assert code == 130, stderr
    assert "stopping: no further run starts" in stderr
    assert "Traceback" not in stderr
    rows = _table(out)
    assert rows[200]["status"] == "ok" and rows[200]["complete"]
    assert rows[100_000]["status"] == "interrupted"
    assert rows[300]["status"] == "not run"
    quick_summary = out / "runs" / rows[200]["run"] / "summary.json"
    stamp = quick_summary.stat().st_mtime_ns
    partial = json.loads((out / "runs" / rows[100_000]["run"] / "summary.json").read_text())
    assert partial["interrupted"]  # what it had was written, marked partial
    assert stdout.startswith("sweep: 3 runs: 1 done")

    # Resume: the interrupted run is not done, so it (and the one never run) go again.
    again = Child("sweep", str(path), "-o", str(out), "--workers", "1")
    plan = again.wait_for(r"sweep: 3 runs: (\d+) already done, 0 bad, (\d+) to run")
    assert plan.groups() == ("1", "2")
    again.wait_for(r"progress: ")
    again.ctrl_c()
    code, _, stderr = again.finish()
    assert code == 130, stderr
    rows = _table(out)
    assert rows[200]["status"] == "ok"
    assert quick_summary.stat().st_mtime_ns == stamp  # the finished run was not touched
    assert rows[100_000]["status"] != "ok"


def test_ctrl_c_on_a_ray_sweep(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    path = _sweep_file(tmp_path, [LONG_OVERRIDES])
    out = tmp_path / "out"
    child = Child("sweep", str(path), "-o", str(out), "--ray", "local")
    child.wait_for(r"progress: 0/1 runs finished, 1 running")
    child.ctrl_c()
    code, _, stderr = child.finish()
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert _table(out)[100_000]["status"] in ("interrupted", "not run")


def _children(pid: int) -> list[int]:
    """Worker processes of the sweep ``pid`` (multiprocessing's spawned children)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def test_a_killed_worker_fails_its_point_only_and_resume_reruns_it(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, [LONG_OVERRIDES, {"workload.flows": 200}])
    out = tmp_path / "out"
    child = Child("sweep", str(path), "-o", str(out), "--workers", "1")
    child.wait_for(r"progress: 0/2 runs finished, 1 running")
    workers = _children(child.proc.pid)
    assert len(workers) == 1
    os.kill(workers[0], signal.SIGKILL)  # as the kernel's out-of-memory killer would
    code, stdout, stderr = child.finish()
    assert code == 1, stderr
    failed = [line for line in stderr.splitlines() if "run failed" in line]
    assert len(failed) == 1 and "SIGKILL" in failed[0], stderr
    rows = _table(out)
    assert rows[100_000]["status"] == "failed" and "SIGKILL" in rows[100_000]["error"]
    assert rows[200]["status"] == "ok"  # the rest of the sweep went on, on a new worker
    assert "1 failed" in stdout

    again = Child("sweep", str(path), "-o", str(out), "--workers", "1")
    plan = again.wait_for(r"sweep: 2 runs: (\d+) already done, 0 bad, (\d+) to run")
    assert plan.groups() == ("1", "1")
    again.wait_for(r"progress: ")
    again.ctrl_c()
    assert again.finish()[0] == 130


# --- Sweep files and exit codes -----------------------------------------------------------------


def test_sweep_without_seeds_runs_each_point_once_with_the_scenario_seed(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, [{"workload.flows": 200}, {"workload.flows": 300}])
    r = run("sweep", str(path), "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    rows = _table(tmp_path / "out")
    assert {k: v["status"] for k, v in rows.items()} == {200: "ok", 300: "ok"}
    assert all(v["seed"] is None for v in rows.values())
    resolved = json.loads(
        (tmp_path / "out" / "runs" / rows[200]["run"] / "scenario.json").read_text()
    )
    assert resolved["seed"] == 1  # the scenario's own (default) seed


def test_sweep_level_errors_exit_2_before_anything_runs(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    missing.write_text('base = "nowhere.toml"\n')
    r = run("sweep", str(missing), "-o", str(tmp_path / "a"))
    assert r.returncode == 2
    assert first_error(r.stderr).startswith(f"fairnet: error: {missing}: base: no scenario file")
    assert not (tmp_path / "a").exists()

    typo = _sweep_file(tmp_path, [], extra='[grid]\n"workload.laod" = [0.3, 0.6]\n')
    r = run("sweep", str(typo), "-o", str(tmp_path / "b"))
    assert r.returncode == 2
    line = first_error(r.stderr)
    assert line.startswith(f"fairnet: error: {typo}: no point of the sweep is a valid scenario")
    assert "laod" in line
    assert not (tmp_path / "b").exists()


def test_a_bad_point_exits_1_after_the_others_ran(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, [{"workload.flows": 200}, {"workload.load": 1.4}])
    r = run("sweep", str(path), "-o", str(tmp_path / "out"))
    assert r.returncode == 1
    assert any("bad point workload.load=1.4" in line for line in r.stderr.splitlines())
    table = pl.read_parquet(tmp_path / "out" / "sweep.parquet")
    assert sorted(table["status"].to_list()) == ["error", "ok"]


# --- Output directories and the console ---------------------------------------------------------

PACKET_RECORDED = [
    "--set",
    "engine.kind='packet'",
    "--set",
    "stop_at='200us'",
    "--set",
    "engine.record={ interval = '50us', queues = 'all' }",
]


def _wrote(stdout: str) -> list[str]:
    line = next(line for line in stdout.splitlines() if line.startswith("wrote "))
    return line.split("(", 1)[1].rstrip(")").split(", ")


def test_a_reused_output_directory_holds_only_the_last_run(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    out = tmp_path / "out"
    first = run("run", str(scenario), "-o", str(out), *PACKET_RECORDED)
    assert first.returncode == 0, first.stderr
    assert {"rates.parquet", "queues.parquet", "links.parquet"} <= set(_wrote(first.stdout))
    (out / "notes.txt").write_text("mine")  # not fairnet's: must survive

    second = run("run", str(scenario), "-o", str(out))
    assert second.returncode == 0, second.stderr
    written = _wrote(second.stdout)
    summary = json.loads((out / "summary.json").read_text())
    assert written == summary["files"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*written, "notes.txt"])
    assert summary["engine"] == "flow"


def test_the_wrote_line_names_exactly_the_files_written(tmp_path: Path) -> None:
    # A packet run cut before any flow finished writes no slowdown plot, but links.parquet.
    out = tmp_path / "out"
    r = run(
        "run",
        str(_scenario(tmp_path)),
        "-o",
        str(out),
        "--set",
        "engine.kind='packet'",
        "--set",
        "stop_at='1us'",
    )
    assert r.returncode == 0, r.stderr
    written = _wrote(r.stdout)
    assert "links.parquet" in written and "slowdown.png" not in written
    assert sorted(written) == sorted(p.name for p in out.iterdir())


def test_output_that_cannot_be_a_directory_is_said_in_words(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    r = run("run", str(scenario), "-o", str(scenario))
    assert r.returncode == 2
    assert first_error(r.stderr) == f"fairnet: error: -o {scenario}: is a file, not a directory"
    r = run("run", str(scenario), "-o", str(scenario / "sub"))
    assert r.returncode == 2
    assert first_error(r.stderr) == (
        f"fairnet: error: -o {scenario / 'sub'}: {scenario} is a file, not a directory"
    )
    # /sys refuses new directories, to root too.
    r = run("run", str(scenario), "-o", "/sys/fairnet-test-output")
    assert r.returncode == 2
    assert first_error(r.stderr) == (
        "fairnet: error: -o /sys/fairnet-test-output: cannot create it (permission denied)"
    )


# --- Bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "workload.load=nan"], "workload.load: must be a finite number, got nan"),
        (["--set", "workload.load=inf"], "workload.load: must be a finite number, got inf"),
        (["--set", "workload.cdf='websarch'"], "workload.cdf: no distribution named 'websarch'"),
    ],
)
def test_bad_scenario_values_name_the_field(tmp_path: Path, args: list[str], message: str) -> None:
    r = run("run", str(_scenario(tmp_path)), "-o", str(tmp_path / "o"), *args)
    assert r.returncode == 2
    line = first_error(r.stderr)
    assert line.startswith(f"fairnet: error: {message}"), line
    assert "line 1 column" not in r.stderr


def test_infinite_weight_in_a_file_and_the_shipped_cdf_names(tmp_path: Path) -> None:
    scenario = tmp_path / "inf.toml"
    scenario.write_text(
        '[topology]\nkind = "star"\nn_hosts = 3\n[workload]\nkind = "flows"\n'
        'flows = [{ src = 0, dst = 2, size = "1MB", weight = inf }]\n[engine]\nkind = "flow"\n'
    )
    r = run("run", str(scenario), "-o", str(tmp_path / "o"))
    assert r.returncode == 2
    assert first_error(r.stderr) == (
        "fairnet: error: workload.flows[0].weight: must be a finite number, got inf"
    )
    r = run("run", str(_scenario(tmp_path)), "--set", "workload.cdf='nope'")
    assert "websearch, datamining, hadoop, googlerpc, alistorage" in first_error(r.stderr)


def test_nan_in_python_api_overrides_names_the_field(tmp_path: Path) -> None:
    import fairnet
    from fairnet.errors import InputError

    with pytest.raises(InputError, match=r"^workload\.load: must be a finite number, got nan$"):
        fairnet.run(_scenario(tmp_path), overrides={"workload.load": float("nan")})


def test_no_message_cites_an_internal_json_position(tmp_path: Path) -> None:
    r = run("topology", "build", "torus", "-o", str(tmp_path / "t.txt"))
    assert r.returncode == 2
    line = first_error(r.stderr)
    assert line.startswith("fairnet: error: topology: unknown variant `torus`")
    assert "column" not in line


def test_workload_with_no_flows_warns(tmp_path: Path) -> None:
    r = run("run", str(_scenario(tmp_path)), "-o", str(tmp_path / "o"), "--set", "workload.flows=0")
    assert r.returncode == 0, r.stderr
    assert first_error(r.stderr) == (
        "fairnet: warning: workload.flows = 0: the workload has no flows, nothing will run"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["allocate", "--fat-tree", "4", "--flows", "-5"],
        ["allocate", "--fat-tree", "4", "--seed", "-1"],
        ["allocate", "--fat-tree", "-4"],
        ["allocate", "--fat-tree", "4", "--weights", "1:nan"],
        ["check", "p.json", "r.json", "--tolerance", "nan"],
        ["sweep", "s.toml", "--workers", "0"],
        ["bench", "packet", "--ms", "-1"],
        ["bench", "flow", "--load", "1.5"],
        ["paper", "run", "sperc-fig7", "--runs", "0"],
    ],
)
def test_bad_cli_arguments_are_one_line_exit_2(tmp_path: Path, args: list[str]) -> None:
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert first_error(r.stderr).startswith("fairnet: error: ")
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


# --- Sizes the machine cannot hold --------------------------------------------------------------


def _limit_memory() -> None:
    """A 3 GB address-space limit (``ulimit -v``): room for fairnet, not for a billion flows."""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_an_oversized_run_is_refused_under_a_memory_limit(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    out = tmp_path / "out"
    r = run(
        "run",
        str(scenario),
        "-o",
        str(out),
        "--set",
        "workload.flows=1000000000",
        preexec_fn=_limit_memory,
    )
    assert r.returncode == 2
    line = first_error(r.stderr)
    assert line.startswith("fairnet: error: this run needs about 400.0 GB of memory")
    assert "(the address-space limit (ulimit -v))" in line and "--no-memory-check" in line
    assert not (out / "summary.json").exists()

    # Enormous recorded series: a warning first, then the refusal (they cannot fit either).
    r = run(
        "run",
        str(scenario),
        "-o",
        str(out),
        "--set",
        "engine.kind='packet'",
        "--set",
        "stop_at='10s'",
        "--set",
        "engine.record={ interval = '10us', queues = 'all' }",
        preexec_fn=_limit_memory,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("fairnet: warning: the recorded series would hold about")
    assert lines[1].startswith("fairnet: error: this run needs about")

    # The oracle's generated problems too.
    r = run("allocate", "--fat-tree", "8", "--flows", "1000000000", preexec_fn=_limit_memory)
    assert r.returncode == 2
    assert first_error(r.stderr).startswith(
        "fairnet: error: this problem needs about 250.0 GB of memory (1,000,000,000 flows)"
    )

    # A run that fits runs under the same limit.
    r = run("run", str(scenario), "-o", str(out), preexec_fn=_limit_memory)
    assert r.returncode == 0, r.stderr


def test_the_memory_check_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    import fairnet.runner
    from fairnet.errors import InputError

    monkeypatch.setattr(fairnet.runner, "available_memory", lambda: (1000, "a test's limit"))
    doc = {
        "topology": {"kind": "star", "n_hosts": 3},
        "workload": {"kind": "permutation", "size": "1MB"},
        "engine": {"kind": "flow"},
    }
    with pytest.raises(InputError, match=r"but 0 MB is available \(a test's limit\)"):
        fairnet.run(doc)
    assert fairnet.run(doc, memory_check=False).summary["finished"] == 3


# --- Logs ---------------------------------------------------------------------------------------


def test_progress_in_a_non_terminal_log(tmp_path: Path) -> None:
    # stderr to a file, as under nohup or CI: plain progress lines while the run goes.
    log = tmp_path / "log.txt"
    out = tmp_path / "out"
    with log.open("w") as f:
        proc = subprocess.Popen(
            [
                *FAIRNET,
                "run",
                str(_scenario(tmp_path)),
                "-o",
                str(out),
                "--set",
                "workload.flows=100000",
                "--set",
                "engine.kind='packet'",
            ],
            stdout=subprocess.DEVNULL,
            stderr=f,
            env=_env(),
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        pattern = re.compile(
            r"^fairnet: progress: [\d,]+/100,000 flows finished, [\d.]+ ms of 10000\.000 ms "
            r"simulated, "
            r"[\d.]+ M events/s, \d+ s elapsed, ETA "
        )
        lines: list[str] = []
        while proc.poll() is None and not any(pattern.match(x) for x in lines):
            time.sleep(0.05)  # polling the log, not timing the interrupt
            lines = log.read_text().splitlines()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=GUARD_S)
    lines = log.read_text().splitlines()
    assert any(pattern.match(x) for x in lines), lines
    assert "\x1b" not in log.read_text()  # no terminal control codes in a log
    assert proc.returncode == 130


def test_same_seed_same_svg(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    for name in ("a", "b"):
        assert run("run", str(scenario), "-o", str(tmp_path / name)).returncode == 0
    a = (tmp_path / "a" / "slowdown.svg").read_bytes()
    assert a == (tmp_path / "b" / "slowdown.svg").read_bytes()
    assert b"<dc:date>" not in a
