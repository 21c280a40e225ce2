"""The ``fairnet`` command line.

Every subcommand reports bad input as one line on stderr (``fairnet: error: ...``) and exits with
code 2; it never shows a traceback for input problems.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import click

from fairnet.errors import InputError

#: Counts given on the command line: flows, workers, runs (at least 1).
COUNT = click.IntRange(min=1)
#: Peak memory per generated flow of ``fairnet allocate`` (measured slope of the peak resident
#: memory between 10,000 and 1,000,000 flows on a k = 8 fat-tree: 211 B/flow).
ALLOCATE_BYTES_PER_FLOW = 250
#: Seeds: the core takes an unsigned 64-bit integer.
SEED = click.IntRange(min=0, max=2**64 - 1)


class PositiveFloat(click.ParamType):
    """A finite number > 0 (and at most ``most``, when given)."""

    name = "number"

    def __init__(self, most: float | None = None) -> None:
        self.most = most

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None):
        try:
            x = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            self.fail(f"expected a number, got {value!r}", param, ctx)
        if not math.isfinite(x) or x <= 0 or (self.most is not None and x > self.most):
            bound = f" and at most {self.most:g}" if self.most is not None else ""
            self.fail(f"expected a finite number > 0{bound}, got {value}", param, ctx)
        return x


def _write_json(path: Path, doc: object) -> None:
    check_output_file(path)
    path.write_text(json.dumps(doc, indent=1) + "\n")


def check_output_file(path: Path, label: str = "-o") -> None:
    """An output file's directory is created and writable, and the path is not a directory."""
    from fairnet.runner import check_output_dir

    if path.is_dir():
        raise InputError(f"{label} {path}: is a directory, not a file")
    check_output_dir(path.parent if str(path.parent) else Path("."), f"{label} {path}: directory")


def _warn(message: str) -> None:
    click.echo(f"fairnet: warning: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fairnet")
def cli() -> None:
    """fairnet: weighted bandwidth allocation in datacenter networks.

    Exact weighted max-min allocations (allocate, check), generated topologies and workloads,
    and benchmarks (bench). See docs/ in the repository.
    """


def _parse_weight_range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(":"))
    except ValueError:
        raise InputError(f"--weights: expected LO:HI, e.g. 0.1:10, got {text!r}") from None
    if not (0 < lo <= hi):
        raise InputError(f"--weights: need 0 < LO <= HI, got {text!r}")
    return lo, hi


@cli.command()
@click.argument("problem", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write RESULT.json here.")
@click.option(
    "--fat-tree",
    "fat_tree_k",
    type=click.IntRange(min=4),
    help="Generate: k-ary fat-tree (even k >= 4).",
)
@click.option(
    "--topology",
    "topology_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Generate: on this topology file (HPCC .txt, .toml or .json).",
)
@click.option(
    "--flows",
    "n_flows",
    type=COUNT,
    default=10_000,
    show_default=True,
    help="Generate: number of flows between random host pairs (ECMP paths).",
)
@click.option(
    "--weights",
    "weight_range",
    default="0.1:10",
    show_default=True,
    help="Generate: weights drawn uniformly from LO:HI.",
)
@click.option("--seed", type=SEED, default=1, show_default=True, help="Generate: random seed.")
@click.option(
    "--save-problem",
    type=click.Path(path_type=Path),
    help="Generate: also write the generated PROBLEM.json here.",
)
@click.option(
    "--no-iterations",
    is_flag=True,
    help="Skip k-Water-filling iteration counts (N_1, N_2) in the result.",
)
@click.option(
    "--no-memory-check",
    is_flag=True,
    help="Generate even if the estimated memory exceeds what the machine has.",
)
def allocate(
    problem: Path | None,
    output: Path | None,
    fat_tree_k: int | None,
    topology_file: Path | None,
    n_flows: int,
    weight_range: str,
    seed: int,
    save_problem: Path | None,
    no_iterations: bool,
    no_memory_check: bool,
) -> None:
    """Exact weighted max-min allocation of PROBLEM.json (or of a generated problem).

    Prints a summary; with -o writes RESULT.json: {"rates": {flow id: bps}, "bottleneck":
    {flow id: link id or null}, "iterations": {"k1", "k2", "kinf"}}.
    """
    from fairnet import alloc, problem_file, workload

    sources = [x for x in (problem, fat_tree_k, topology_file) if x is not None]
    if len(sources) != 1:
        raise InputError("give exactly one of PROBLEM.json, --fat-tree K or --topology FILE")
    weights = _parse_weight_range(weight_range)
    if problem is None and not no_memory_check:
        from fairnet.runner import require_memory

        need = n_flows * ALLOCATE_BYTES_PER_FLOW
        require_memory(need, "this problem", f"{n_flows:,} flows")
    if problem is not None:
        spec = problem_file.load_problem(problem)
    elif fat_tree_k is not None:
        spec = workload.fat_tree_problem(fat_tree_k, n_flows, seed=seed, weights=weights)
    else:
        topology = workload.topology_from_path(str(topology_file))
        spec = workload.topology_problem(topology, n_flows, seed=seed, weights=weights)
    if save_problem is not None:
        if problem is not None:
            raise InputError("--save-problem is for generated problems")
        _write_json(save_problem, problem_file.problem_document(spec))
    t0 = time.perf_counter()
    result = alloc.allocate(
        spec.capacities,
        spec.paths,
        spec.weights,
        spec.demands,
        spec.guarantees,
        **(spec.names() if problem is not None else {}),
    )
    elapsed = time.perf_counter() - t0
    report = alloc.check_allocation(
        spec.capacities,
        spec.paths,
        result.rates,
        spec.weights,
        spec.demands,
        spec.guarantees,
        **(spec.names() if problem is not None else {}),
    )
    from fairnet.report import print_allocation_summary

    if not no_iterations and len(spec.flow_ids) > 100_000:
        click.echo(
            "computing k-Water-filling iteration counts N1, N2 (minutes at a million flows; "
            "--no-iterations skips them)...",
            err=True,
        )

    print_allocation_summary(spec, result, report, elapsed, iterations=not no_iterations)
    if output is not None:
        _write_json(output, problem_file.result_document(spec, result, not no_iterations))
        click.echo(f"wrote {output}")
    if not report.ok:
        raise click.ClickException(f"checker rejected the allocation: {report.message}")


@cli.command()
@click.argument("problem", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("result", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--tolerance", type=PositiveFloat(), default=None, help="Relative tolerance (default 1e-6)."
)
def check(problem: Path, result: Path, tolerance: float | None) -> None:
    """Verify RESULT.json's rates against PROBLEM.json (independent checker).

    Exit code 0 if the rates are the weighted max-min fair allocation, 1 if not.
    """
    from fairnet import alloc, problem_file

    spec = problem_file.load_problem(problem)
    rates = problem_file.load_rates(result, spec)
    report = alloc.check_allocation(
        spec.capacities,
        spec.paths,
        rates,
        spec.weights,
        spec.demands,
        spec.guarantees,
        tolerance=tolerance,
        **spec.names(),
    )
    click.echo(report.message)
    if not report.ok:
        sys.exit(1)


@cli.command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Output directory (default: results/<scenario file name>; for a run directory "
    "or its scenario.json: results/<run directory name>-rerun).",
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override a scenario field, e.g. --set workload.load=0.8 (repeatable).",
)
@click.option(
    "--fct-txt", is_flag=True, help="Also write fct.txt in the HPCC ns-3 simulator's format."
)
@click.option(
    "--fct-def",
    type=click.Choice(["fairnet", "ns3"]),
    default="fairnet",
    show_default=True,
    help="The FCT definition of fct.txt: fairnet's (last byte delivered; one-way ideal) or "
    "the ns-3 simulator's (the sender's ACK of the last byte; base-RTT ideal; packet engine).",
)
@click.option(
    "--no-memory-check",
    is_flag=True,
    help="Run even if the estimated memory exceeds what the machine has.",
)
def run_cmd(
    scenario: Path,
    output: Path | None,
    overrides: tuple[str, ...],
    fct_txt: bool,
    fct_def: str,
    no_memory_check: bool,
) -> None:
    """Run a scenario (TOML or JSON), or rerun a run directory: Parquet flow table,
    summary.json, provenance.json, plots and report.html."""
    from fairnet.report import console
    from fairnet.runner import check_output_dir, default_output, run

    outdir = output if output is not None else default_output(scenario)
    check_output_dir(outdir, "-o" if output is not None else "output directory")
    # SIGTERM (a job scheduler, `kill`) stops the run like Ctrl-C: what finished is written.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    results = run(
        scenario,
        overrides=overrides,
        output=outdir,
        fct_txt=fct_txt,
        fct_def=fct_def,
        show_progress=True,
        memory_check=not no_memory_check,
        warn=_warn,
    )
    summary = results.summary
    if summary.get("failure"):
        console.print(
            f"wrote the partial results to {outdir}/ ({', '.join(summary['files'])}; "
            "summary.json says why)",
            soft_wrap=True,
        )
        click.echo(f"fairnet: error: the run failed part-way: {summary['failure']}", err=True)
        # A model that blows up was given parameters or a state it cannot follow: bad input.
        sys.exit(2 if summary["engine"] == "model" else 1)
    if summary["interrupted"]:
        console.print(
            f"interrupted: wrote the {summary['finished']:,} finished flows to {outdir}/ "
            f"({', '.join(summary['files'])}; summary.json marks the run partial)",
            soft_wrap=True,
        )
        sys.exit(130)
    if summary["engine"] == "model":
        from fairnet.model import print_run_line

        print_run_line(summary, outdir, results.provenance["wall_seconds"])
        return
    sd = summary["slowdown"]
    console.print(
        f"{summary['engine']} engine: {summary['finished']:,}/{summary['flows']:,} flows "
        f"finished in {summary['simulated_seconds'] * 1e3:.3f} ms simulated, "
        f"{results.provenance['wall_seconds']:.2f} s wall; "
        f"median slowdown {sd['median']:.2f}, p99 {sd['p99']:.2f}"
        if summary["finished"]
        else f"{summary['engine']} engine: no flow finished",
        soft_wrap=True,
    )
    fair = summary.get("fairness", {})
    if fair.get("flows") and summary["engine"] != "flow":
        console.print(
            f"throughput vs weighted max-min: Jain {fair['jain_vs_maxmin']:.4f}, "
            f"median {fair['throughput_over_maxmin']['median']:.3f} of max-min",
            soft_wrap=True,
        )
    # The files this run wrote (summary.json's list), and nothing else.
    console.print(f"wrote {outdir}/ ({', '.join(summary['files'])})", soft_wrap=True)


@cli.command("schema")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), default=None, help="Write to this file."
)
def schema_cmd(output: Path | None) -> None:
    """Print the scenario JSON Schema (generated from the Rust definition)."""
    from fairnet import _core

    text = _core.scenario_json_schema() + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        check_output_file(output)
        output.write_text(text)
        click.echo(f"wrote {output}")


@cli.command("compare")
@click.argument("runs", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("results/compare"),
    show_default=True,
    help="Output directory.",
)
@click.option("--label", "labels", multiple=True, help="A name per run, in order (repeatable).")
@click.option(
    "--fct-def",
    type=click.Choice(["fairnet", "ns3"]),
    default=None,
    help="Compare under this FCT definition (default: the runs' own if they agree, else the "
    "ns-3 simulator's); runs are converted where they can be, refused where not.",
)
def compare_cmd(
    runs: tuple[Path, ...], output: Path, labels: tuple[str, ...], fct_def: str | None
) -> None:
    """Overlay runs (run directories or HPCC fct.txt files): slowdown by flow size."""
    from rich.table import Table

    from fairnet.compare import QUANTILES, compare
    from fairnet.report import console
    from fairnet.runner import SIZE_BINS, check_output_dir

    check_output_dir(output, "-o")
    loaded, notes = compare(list(runs), output, list(labels) or None, fct_def)
    for note in notes:  # said, never refused: the overlay may still be what the user wants
        _warn(f"compare: {note}")
    definition = loaded[0].definition if loaded else "fairnet"
    table = Table(title=f"FCT slowdown by flow size ({definition} FCT definition)")
    for col in ("size", "run", "flows", *QUANTILES):
        table.add_column(col, justify="left" if col in ("size", "run") else "right")
    for i, (_, _, label) in enumerate(SIZE_BINS):
        for j, r in enumerate(loaded):
            b = r.by_size[i]
            table.add_row(
                label if j == 0 else "",
                r.label,
                f"{b['flows']:,}",
                *(f"{b[q]:.2f}" if q in b else "-" for q in QUANTILES),
                end_section=j == len(loaded) - 1,
            )
    console.print(table)
    queued = [r for r in loaded if r.queue is not None]
    for r in queued:
        q = r.queue
        console.print(
            f"{r.label}: busiest queue (link {q['link']}) mean {q['mean_bytes']:,.0f} B, "
            f"p5-p95 {q['p5_bytes']:,.0f}-{q['p95_bytes']:,.0f} B"
        )
    extra = ", compare_queues.png/svg" if queued else ""
    console.print(f"wrote {output}/ (compare.json, compare.png/svg, compare.html{extra})")


@cli.command("sweep")
@click.argument("sweep_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Output directory (default: results/<sweep file name>).",
)
@click.option(
    "--workers", type=COUNT, default=None, help="Local worker processes (default: cores)."
)
@click.option("--ray", "ray_address", default=None, help="Run on this Ray cluster (or 'local').")
@click.option(
    "--no-memory-check",
    is_flag=True,
    help="Run points even if their estimated memory exceeds what the machine has.",
)
def sweep_cmd(
    sweep_file: Path,
    output: Path | None,
    workers: int | None,
    ray_address: str | None,
    no_memory_check: bool,
) -> None:
    """Run a sweep (a grid or points of a scenario, times seeds) into one sweep.parquet.

    Exit code 0 when every run is done, 1 when a point was bad or failed (the others ran),
    2 for a bad sweep file (nothing ran), 130 when interrupted (sweep.parquet is written).
    """
    from fairnet.report import console
    from fairnet.sweep import run_sweep

    outdir = output if output is not None else Path("results") / sweep_file.stem
    o = run_sweep(
        sweep_file,
        outdir,
        workers=workers,
        ray_address=ray_address,
        memory_check=not no_memory_check,
    )
    console.print(f"sweep: {o.describe()}; wrote {o.table}", soft_wrap=True)
    if o.exit_code:
        sys.exit(o.exit_code)


@cli.group()
def paper() -> None:
    """Reproductions of published figures (the paper registry)."""


@paper.command("list")
def paper_list() -> None:
    """List the registry: name, paper and figure, title."""
    from fairnet.paper import REGISTRY

    for e in REGISTRY.values():
        click.echo(f"{e.name:<12} {e.paper}, {e.figure}: {e.title}")


@paper.command("run")
@click.argument("name")
@click.option(
    "--scale",
    type=click.Choice(["smoke", "full"]),
    default="smoke",
    show_default=True,
    help="smoke: seconds (CI); full: the paper's scale.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Output directory (default: results/paper/<name>).",
)
@click.option(
    "--runs",
    type=COUNT,
    default=None,
    help="Seeded runs of an entry that repeats its experiment (sperc-fig7, sperc-fig8, "
    "sperc-table5; default: the scale's count).",
)
def paper_run(name: str, scale: str, output: Path | None, runs: int | None) -> None:
    """Run one reproduction: a plot mirroring the figure, results.json, and a table of the
    paper's numbers beside ours."""
    from fairnet.paper import get
    from fairnet.report import console

    entry = get(name)
    outdir = output if output is not None else Path("results") / "paper" / name
    from fairnet.runner import check_output_dir

    check_output_dir(outdir, "-o" if output is not None else "output directory")
    result = entry.run(scale, outdir, console, runs=runs)
    console.print(f"wrote {', '.join(str(p) for p in result.files)}")


def _parse_value(text: str) -> object:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _topology_spec(kind_or_file: str, params: tuple[str, ...]) -> dict:
    if Path(kind_or_file).suffix in (".txt", ".toml", ".json"):
        if params:
            raise InputError("a topology file takes no KEY=VALUE parameters")
        return {"kind": "file", "path": kind_or_file}
    spec: dict = {"kind": kind_or_file}
    for p in params:
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {p!r}")
        spec[key] = _parse_value(value)
    return spec


@cli.group()
def topology() -> None:
    """Build, inspect and convert topologies (HPCC topology.txt, TOML, JSON).

    A topology is a builder KIND with KEY=VALUE parameters (fat_tree k=8, leaf_spine
    hosts_per_leaf=16 leaves=8 spines=4, dumbbell n_pairs=4, parking_lot n_hops=3, star
    n_hosts=8; rates like host_rate=100Gbps, delay=1us, buffer=32MB) or a file.
    """


@topology.command("info")
@click.argument("kind_or_file")
@click.argument("params", nargs=-1)
def topology_info(kind_or_file: str, params: tuple[str, ...]) -> None:
    """Print node, host, switch and link counts."""
    from fairnet import workload

    info = workload.topology_info(_topology_spec(kind_or_file, params))
    for key, value in info.items():
        click.echo(f"{key}: {value}")


@topology.command("build")
@click.argument("kind_or_file")
@click.argument("params", nargs=-1)
@click.option("-o", "--output", required=True, help="Output file (.txt = HPCC, .toml, .json).")
@click.option("--format", "fmt", type=click.Choice(["hpcc", "toml", "json"]), default=None)
def topology_build(
    kind_or_file: str, params: tuple[str, ...], output: str, fmt: str | None
) -> None:
    """Write a topology (built, or converted from a file) to OUTPUT."""
    from fairnet import workload

    check_output_file(Path(output))
    workload.write_topology(_topology_spec(kind_or_file, params), output, fmt)
    click.echo(f"wrote {output}")


@cli.group()
def bench() -> None:
    """Benchmarks that print their figures."""


@bench.command("allocate")
@click.option("--quick", is_flag=True, help="Smaller series (for a fast look).")
@click.option("--seed", type=SEED, default=1, show_default=True)
def bench_allocate(quick: bool, seed: int) -> None:
    """Oracle speed: 1M flows on a k=16 fat-tree, and the series of Söze Fig. 19."""
    from fairnet.bench import bench_allocate as run

    run(quick=quick, seed=seed)


@bench.command("packet")
@click.option(
    "--ms",
    "simulated_ms",
    type=PositiveFloat(),
    default=10.0,
    show_default=True,
    help="Simulated milliseconds.",
)
def bench_packet(simulated_ms: float) -> None:
    """Packet engine speed: htsim yardstick (k=8 fat-tree, DCTCP, permutation), web search 50%."""
    from fairnet.bench_packet import bench_packet as run

    run(simulated_ms=simulated_ms)


@bench.command("flow")
@click.option("--flows", "n_flows", type=COUNT, default=1_000_000, show_default=True)
@click.option("--load", type=PositiveFloat(most=1.0), default=0.6, show_default=True)
@click.option("--seed", type=SEED, default=1, show_default=True)
@click.option(
    "--active",
    type=COUNT,
    default=100_000,
    show_default=True,
    help="Concurrently active flows for the incremental-vs-recompute figure.",
)
@click.option(
    "--parking-flows",
    type=click.IntRange(min=0),
    default=100_000,
    show_default=True,
    help="Flows per load on m3's parking lot (0: skip that table).",
)
def bench_flow(n_flows: int, load: float, seed: int, active: int, parking_flows: int) -> None:
    """Fluid engine speed: m3's parking lot at 60-95% load, web search at 60% load on a k=16
    fat-tree, and the incremental allocator against a full recompute per event."""
    from fairnet.bench import bench_flow as run

    run(n_flows=n_flows, load=load, seed=seed, active=active, parking_flows=parking_flows)


@bench.command("model")
@click.option("--flows", "n_flows", type=int, default=1000, show_default=True)
@click.option("--rtts", type=int, default=10_000, show_default=True)
@click.option("--iterations", type=int, default=1_000_000, show_default=True)
def bench_model(n_flows: int, rtts: int, iterations: int) -> None:
    """Model engine speed: DCTCP's fluid model (1,000 flows, 10,000 RTTs) and two maps,
    Chiu-Jain's and MAY's mean-field map (10^6 iterations each)."""
    from fairnet.bench import bench_model as run

    run(flows=n_flows, rtts=rtts, iterations=iterations)


@cli.group("model")
def model_group() -> None:
    """The model engine's registered models (run one with a scenario, engine.kind = "model")."""


@model_group.command("list")
@click.option("--params", "show_params", is_flag=True, help="Also list every parameter.")
def model_list(show_params: bool) -> None:
    """List the models: name, paper and equation."""
    from fairnet.model import list_models

    for m in list_models():
        click.echo(f"{m['name']:<16} {m['paper']}")
        click.echo(f"{'':<16} {m['equation']}")
        if show_params:
            base = {"duration": " s", "rate": " bit/s", "size": " B"}
            for p in m["params"]:
                unit = base.get(p["unit"], "")
                default = "required" if p["default"] is None else f"default {p['default']:g}{unit}"
                click.echo(f"{'':<18}{p['name']} ({p['unit']}, {default}): {p['doc']}")


@cli.command()
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("results/demo"),
    show_default=True,
    help="Output directory.",
)
def demo(output: Path) -> None:
    """The main job: weighted flows on a k=8 fat-tree, solved, checked and written out."""
    from fairnet.demo import run_demo
    from fairnet.runner import check_output_dir

    check_output_dir(output, "-o")
    run_demo(output)


def main() -> None:
    """Entry point: runs the CLI and turns input errors into one line and exit code 2.

    Exit codes: 0 done; 1 a sweep point bad or failed, a checker rejection, a run that failed
    part-way, or a fairnet bug (one line; ``FAIRNET_TRACEBACK=1`` shows the traceback);
    2 bad input, before anything runs; 130 interrupted, after writing what finished.
    """
    try:
        cli.main(standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("fairnet: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"fairnet: error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except (InputError, ValueError) as e:
        click.echo(f"fairnet: error: {e}", err=True)
        sys.exit(2)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        click.echo(f"fairnet: error: {where}{e.strerror or e}", err=True)
        sys.exit(2)
    except Exception as e:  # a bug: still one line, unless asked for the traceback
        if os.environ.get("FAIRNET_TRACEBACK"):
            raise
        click.echo(
            f"fairnet: internal error: {type(e).__name__}: {e} "
            "(FAIRNET_TRACEBACK=1 shows where; please report it)",
            err=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
