"""The model engine from Python and the CLI: accuracy against SciPy, outputs, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from scipy.integrate import solve_ivp

import fairnet
from fairnet.errors import InputError
from fairnet.model import list_models, model_document

FAIRNET = [sys.executable, "-m", "fairnet.cli"]

DCTCP_TOML = """
name = "dctcp fluid"
[engine]
kind = "model"
model = "dctcp_fluid"
horizon = "20ms"
output_interval = "50us"
[engine.params]
flows = 2
capacity = "10Gbps"
rtt = "100us"
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*FAIRNET, *args], capture_output=True, text=True)


def test_fluid_model_matches_scipy_solve_ivp_where_no_mark_arrives() -> None:
    # While the queue stays between 0 and K no packet is marked and DCTCP's fluid model is the
    # plain ODE W_i' = 1/R, a_i' = -g a_i/R, q' = sum W/R - C with R = d + q/C. Two flows from
    # W = (60, 72) packets and q = 10 packets fill the queue slowly; over 1 ms it rises to about
    # 28 packets, below K = 65. SciPy's RK45 at rtol 1e-11 is the reference; fairnet asked for
    # rtol 1e-8 must agree to that tolerance, relative, on every output sample (measured:
    # 4e-9).
    c = 10e9 / (8 * 1048)  # packets/s
    d, g, k = 100e-6, 1 / 16, 65.0
    w0, a0, q0 = [60.0, 72.0], [0.5, 0.5], 10.0
    horizon = 1e-3
    df = fairnet.model(
        "dctcp_fluid",
        flows=2,
        rtt=d,
        horizon=horizon,
        output_interval=1e-5,
        initial={"W": w0, "alpha": a0, "q": q0},
        rtol=1e-8,
        atol=1e-10,
    )

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        r = d + y[4] / c
        return np.array([1 / r, 1 / r, -g * y[2] / r, -g * y[3] / r, (y[0] + y[1]) / r - c])

    ref = solve_ivp(
        rhs,
        (0, horizon),
        [*w0, *a0, q0],
        method="RK45",
        t_eval=df["time_s"].to_numpy(),
        rtol=1e-11,
        atol=1e-12,
    )
    assert ref.success
    q = df["q"].to_numpy()
    assert 0 < q.min() and q.max() < k, "the comparison needs the unmarked regime"
    worst = 0.0
    for col, row in (("W[0]", 0), ("W[1]", 1), ("alpha[0]", 2), ("alpha[1]", 3), ("q", 4)):
        ours = df[col].to_numpy()
        rel = np.abs(ours - ref.y[row]) / np.abs(ref.y[row])
        assert rel.max() < 1e-8, (col, rel.max())
        worst = max(worst, rel.max())
    print(f"largest relative difference from solve_ivp: {worst:.2e}")


def test_model_returns_a_polars_table_with_every_output() -> None:
    # 2 flows: q, queue_bytes, the means, and W, alpha, rate per flow; 20 ms every 50 us is
    # 401 samples starting at 0 with the default start (W = 10, alpha = 1, q = 0).
    df = fairnet.model("dctcp_fluid", flows=2, horizon=0.02, output_interval=5e-5)
    assert isinstance(df, pl.DataFrame)
    assert df.columns == [
        "time_s",
        "q",
        "queue_bytes",
        "W_mean",
        "alpha_mean",
        "W[0]",
        "alpha[0]",
        "rate[0]",
        "W[1]",
        "alpha[1]",
        "rate[1]",
    ]
    assert df.height == 401
    assert df["time_s"][-1] == pytest.approx(0.02)
    assert (df["W[0]"][0], df["alpha[0]"][0], df["q"][0]) == (10.0, 1.0, 0.0)
    # The queue in bytes is the queue in packets of 1048 B.
    assert np.allclose(df["queue_bytes"].to_numpy(), 1048 * df["q"].to_numpy())


def test_run_writes_the_shared_tables_summary_plot_and_report(tmp_path: Path) -> None:
    # fairnet run on a model scenario: the model table, the queue of link 0 and the two flows'
    # rates in the same tables as a packet run, a summary with the model block, and a report.
    scenario = tmp_path / "fluid.toml"
    scenario.write_text(DCTCP_TOML)
    out = tmp_path / "out"
    r = cli("run", str(scenario), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "model engine: 20.000 ms simulated" in r.stdout
    for name in ("model.parquet", "queues.parquet", "rates.parquet", "model.png", "report.html"):
        assert (out / name).is_file(), name
    queues = pl.read_parquet(out / "queues.parquet")
    assert queues.columns == ["time_s", "link", "queue_bytes", "qdelay_s"]
    assert set(queues["link"].to_list()) == {0}
    assert queues["queue_bytes"].max() > 0
    rates = pl.read_parquet(out / "rates.parquet")
    assert set(rates["flow"].to_list()) == {0, 1}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["engine"] == "model" and summary["complete"]
    q = summary["model"]["summarized"]["q"]
    assert 40 < q["mean_second_half"] < 80, q  # around K = 65
    assert "Model outputs" in (out / "report.html").read_text()


def test_random_maps_follow_the_seed() -> None:
    def path(seed: int) -> pl.DataFrame:
        return fairnet.model("chiu_jain_aimd", feedback=0.5, horizon=0.05, seed=seed)

    assert path(5).equals(path(5))
    assert not path(5).equals(path(6))


def test_model_list_names_each_model_with_its_paper_and_equation() -> None:
    names = [m["name"] for m in list_models()]
    assert "dctcp_fluid" in names and "chiu_jain_aimd" in names
    r = cli("model", "list")
    assert r.returncode == 0
    assert "dctcp_fluid" in r.stdout and "SIGMETRICS 2011" in r.stdout
    assert "p = 1{q > K}" in r.stdout


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: fairnet.model("dctcp", horizon=0.01),
            "engine.model: unknown model 'dctcp' (known: dctcp_fluid, chiu_jain_aimd",
        ),
        (
            lambda: fairnet.model("dctcp_fluid", horizon=0.01, colour=2),
            'engine.params.colour: model "dctcp_fluid" has no parameter "colour"',
        ),
        (
            lambda: fairnet.model("dctcp_fluid", horizon=0.01, rtt=-1e-4),
            "engine.params.rtt: must not be negative",
        ),
        (
            lambda: fairnet.model("dctcp_fluid", horizon=0.01, initial={"W": [1.0] * 9 + [np.nan]}),
            "engine.initial.W[9]: must be a finite number, got nan",
        ),
        (
            lambda: fairnet.model("dctcp_fluid", horizon=0.0, output_interval=1e-5),
            "engine.horizon: must be positive",
        ),
        (
            lambda: fairnet.model("dctcp_fluid", horizon=0.01, flows=0),
            "engine.params.flows: must be positive, got 0",
        ),
        (
            lambda: fairnet.model("wvcc_fluid", horizon=0.01, flows=2, weights=[1.0, 0.0]),
            "engine.params.weights: flow 1: a weight must be a positive number, got 0",
        ),
        (
            lambda: fairnet.model("wvcc_fluid", horizon=0.01, flows=3, weights=[1.0, 2.0]),
            "engine.params.weights: expected one number or 3 (one per entry), got 2",
        ),
    ],
)
def test_bad_input_is_one_value_error_naming_the_field(
    call: Callable[[], object], message: str
) -> None:
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(message), str(e.value)


def test_bad_model_scenarios_exit_2_with_one_line(tmp_path: Path) -> None:
    for bad, expected in (
        ('model = "dctcp_fluid"', 'model = "fluid"'),
        ("flows = 2", "flows = 2\nextra = 1"),
        ('horizon = "20ms"', 'horizon = "0s"'),
    ):
        scenario = tmp_path / "bad.toml"
        scenario.write_text(DCTCP_TOML.replace(bad, expected))
        r = cli("run", str(scenario), "-o", str(tmp_path / "out"))
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fairnet: error: engine."), r.stderr


def test_model_document_converts_seconds_for_duration_parameters() -> None:
    doc = model_document("dctcp_fluid", horizon=0.01, rtt=1e-4, capacity="10Gbps")
    engine = doc["engine"]
    assert engine["params"] == {"rtt": "0.0001s", "capacity": "10Gbps"}
    assert engine["horizon"] == "0.01s" and engine["output_interval"] == "1e-05s"
    with pytest.raises(InputError):
        model_document("dctcp_fluid", horizon="10ms")  # no output interval to derive


def test_bench_model_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from fairnet.bench import bench_model

    figures = bench_model(flows=20, rtts=200, iterations=2000)
    out = capsys.readouterr().out
    assert "DCTCP fluid model, 20 flows over 200 RTTs" in out
    assert "Chiu-Jain AIMD map" in out and "MAY mean-field map, 100 flows, 2,000 iterations" in out
    assert figures["fluid"]["steps"] > 0 and figures["map"]["steps"] == 2000
    assert figures["may"]["steps"] == 2000


PACKET_TOML = """
name = "dctcp packet, 2 flows"
stop_at = "30ms"
[topology]
kind = "dumbbell"
n_pairs = 2
access_rate = "10Gbps"
bottleneck_rate = "10Gbps"
delay = "16us"
buffer = "4MB"
[workload]
kind = "flows"
flows = [{ src = 0, dst = 2, size = "1000GB" }, { src = 1, dst = 3, size = "1000GB" }]
[engine]
kind = "packet"
transport = "dctcp"
qdisc = { kind = "ecn", k = { packets = 65 } }
record = { interval = "10us", flows = false, queues = "queued" }
"""


def test_compare_overlays_a_fluid_model_and_a_packet_run_of_the_same_link(
    tmp_path: Path,
) -> None:
    # The same bottleneck both ways: 2 DCTCP flows, 10 Gb/s, K = 65 packets of 1048 B, base
    # RTT 98.63 us (three 16 us hops each way plus serialization), 30 ms. fairnet compare finds
    # link 0's queue in both queues.parquet tables and overlays them. The sawtooth's top (the
    # queue's 95th percentile, about K + N packets) agrees within 10% (measured: 69.2 KB
    # packet, 69.8 KB fluid); the means differ more because the packet run's slow start fills
    # the queue at 1 ms and the fluid model's linear increase at 5 ms.
    fluid = DCTCP_TOML.replace('horizon = "20ms"', 'horizon = "30ms"').replace(
        'rtt = "100us"', 'rtt = "98.63us"'
    )
    runs = []
    for name, text in (("packet", PACKET_TOML), ("fluid", fluid)):
        (tmp_path / f"{name}.toml").write_text(text)
        r = cli("run", str(tmp_path / f"{name}.toml"), "-o", str(tmp_path / name))
        assert r.returncode == 0, r.stderr
        runs.append(str(tmp_path / name))
    out = tmp_path / "cmp"
    r = cli("compare", *runs, "-o", str(out), "--label", "packet", "--label", "fluid")
    assert r.returncode == 0, r.stderr
    assert (out / "compare_queues.png").is_file()
    packet, model = json.loads((out / "compare.json").read_text())
    assert packet["queue"]["link"] == model["queue"]["link"] == 0
    top_p, top_f = packet["queue"]["p95_bytes"], model["queue"]["p95_bytes"]
    assert abs(top_p / top_f - 1) < 0.10, (top_p, top_f)


def test_a_model_that_blows_up_exits_2_and_says_where(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The registered models stay finite for every valid input, so the run's summary of a
    # blow-up (as the engine writes it: failure naming time and variable, partial) is handed
    # to the CLI directly; the engine side is engine::model's blow-up test. Expected: the
    # failure on one line and exit code 2 (the model's input cannot be followed).
    import fairnet.cli
    import fairnet.runner

    summary = {
        "engine": "model",
        "failure": "the solution blows up at t = 1.000000e0 s: y = 1.496e11",
        "interrupted": False,
        "files": ["model.parquet", "summary.json"],
    }
    results = SimpleNamespace(summary=summary, provenance={"wall_seconds": 0.1})
    monkeypatch.setattr(fairnet.runner, "run", lambda *a, **k: results)
    scenario = tmp_path / "m.toml"
    scenario.write_text(DCTCP_TOML)
    monkeypatch.setattr(sys, "argv", ["fairnet", "run", str(scenario), "-o", str(tmp_path)])
    with pytest.raises(SystemExit) as e:
        fairnet.cli.main()
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "fairnet: error: the run failed part-way: the solution blows up at t = 1.000000e0 s: "
        "y = 1.496e11"
    ]


def test_eba_logistic_model_matches_scipy_and_settles_on_the_guarantee() -> None:
    # eBA's Eq. (6) with the floor of Eq. (16) and the cap of Eq. (17), written again here in
    # the log coordinates of Eq. (7) and solved by SciPy's RK45 at rtol 1e-10: one 900 Mb/s
    # link, X (weight 1, guarantee 400 Mb/s) and Y (weight 2), both from 1 Mb/s, r(0) = C.
    # fairnet at rtol 1e-9 must agree on every sample to 1e-5 relative (the cap's kink, where
    # the load first reaches C, costs both solvers some accuracy; measured 2e-7). Both settle
    # where 400 + 2r = 900: X at its guarantee 400 Mb/s, Y at 500 Mb/s, r = 250 Mb/s.
    c, alpha, beta, b_x, w = 900e6, 2.0, 2.0, 400e6, np.array([1.0, 2.0])

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        lnv, lnr = y[:2], y[2]
        send = np.maximum(np.exp(lnv), [b_x, 0.0])
        dv = alpha * (np.log(w * min(np.exp(lnr), c)) - lnv)
        dr = beta * (1.0 - send.sum() / c)
        if lnr >= np.log(c):
            dr = min(dr, 0.0)
        return np.array([*dv, dr])

    times = np.arange(0.0, 20.0 + 1e-9, 0.05)
    ref = solve_ivp(
        rhs, (0.0, 20.0), [np.log(1e6), np.log(1e6), np.log(c)], t_eval=times,
        rtol=1e-10, atol=1e-12,
    )
    df = fairnet.model(
        "eba_lrc", capacity=c, last_weight=2.0, first_guarantee=b_x, initial_rate=1e6,
        horizon=20.0, output_interval=0.05, rtol=1e-9, atol=1e-12,
    )
    assert df.height == len(times)
    expect_x = np.maximum(np.exp(ref.y[0]), b_x)
    expect_y = np.exp(ref.y[1])
    for col, expect in (("rate[0]", expect_x), ("rate[1]", expect_y)):
        got = df[col].to_numpy()
        assert np.max(np.abs(got - expect) / expect) < 1e-5, col
    last = df.row(-1, named=True)
    assert abs(last["rate[0]"] - 400e6) < 1e3 and abs(last["rate[1]"] - 500e6) < 1e3
    assert abs(last["r[0]"] - 250e6) < 1e3
