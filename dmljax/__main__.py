"""``python -m dmljax``, or the ``dmljax`` console script: ``selftest`` (is it right
here?), ``bench`` (is it fast here?) and ``scaling`` (does it scale over this machine's
devices?).

Examples::

    python -m dmljax selftest
    python -m dmljax selftest --json selftest.json
    python -m dmljax bench --quick
    python -m dmljax bench --json results.json --plot results.png
    python -m dmljax bench --from-json results.json --plot results.png
    python -m dmljax scaling --json scaling.json
    python -m dmljax run tests/data/dxdispatch/dml_join.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from collections.abc import Sequence

import dmljax

__all__ = ["main", "run", "unwritable"]


def _program() -> str:
    """How the user ran the command: the ``dmljax`` console script or ``python -m dmljax``."""
    return "dmljax" if pathlib.Path(sys.argv[0]).name == "dmljax" else "python -m dmljax"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_program(), description="dmljax: DirectML operators in pure JAX."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {dmljax.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    selftest = commands.add_parser(
        "selftest",
        help="check every DirectML doc example and a property sweep on the default device",
        description="Runs every DirectML doc example of an implemented operator and a short "
        "property sweep against the NumPy reference (eager, jit, vmap, grad) on the default "
        "JAX device. Exit status 1 on any failure.",
    )
    selftest.add_argument("--seed", type=int, default=0, help="seed of the sweep (default 0)")
    selftest.add_argument(
        "--json", metavar="PATH", help="write every check, its case and detail, as JSON"
    )
    selftest.add_argument(
        "--draws",
        type=int,
        help="random cases per operator in the sweep, one data dtype after another "
        "(default: one per dtype)",
    )
    selftest.add_argument(
        "--filter",
        action="append",
        metavar="SUBSTRING",
        help="only the operators whose DirectML name contains SUBSTRING (again for more)",
    )

    bench = commands.add_parser(
        "bench",
        help="time each operator against hand-written jax.numpy and a copy of the same bytes",
        description="Times every case of the suite against the hand-written jax.numpy form and "
        "a copy of the same bytes (interleaved, medians of groups of back-to-back calls), and "
        "reports bandwidth, kernel counts, compile times and eager call overhead. Exit status 0 "
        "even when targets are missed (they are listed at the end); 1 when a case fails or "
        "disagrees with jnp.",
    )
    bench.add_argument(
        "--quick", action="store_true", help="small sizes and fewer repeats (always so on CPU)"
    )
    bench.add_argument("--json", metavar="PATH", help="write every figure and the environment")
    bench.add_argument(
        "--plot", metavar="PATH", help='write a PNG chart (needs pip install "dmljax[plot]")'
    )
    bench.add_argument(
        "--from-json", metavar="PATH", help="print and plot a saved --json result; runs nothing"
    )
    bench.add_argument(
        "--filter",
        action="append",
        metavar="SUBSTRING",
        help="only the cases whose name contains SUBSTRING (again for more: any of them)",
    )
    bench.add_argument("--list", action="store_true", help="list the cases and exit")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random data (default 0)")
    bench.add_argument(
        "--group",
        choices=("operators", "adversarial"),
        default="operators",
        help="operators: every operator against jnp (default); adversarial: reductions on "
        "the index distributions where XLA's atomics contend, against every candidate lowering",
    )

    run = commands.add_parser(
        "run",
        help="run a DxDispatch JSON model of DirectML operators and print what it prints",
        description="Loads a DxDispatch model (resources, DirectML operator dispatchables, "
        "commands), runs its commands in order and prints what its print commands print, as "
        "DxDispatch does. Exit status 2, with one line, for a model dmljax cannot run.",
    )
    run.add_argument("model", metavar="MODEL.json", help="the model file")
    run.add_argument(
        "--json", metavar="PATH", help="also write the printed lines and every resource's values"
    )

    scaling = commands.add_parser(
        "scaling",
        help="batch-sharded GATHER and SCATTER on one device, then on every device",
        description="Weak scaling: each device holds a 1 GiB f32 operand (1 MiB with --quick "
        "or on CPU), sharded along its batch axis, and GATHER and SCATTER run along another "
        "axis, on one device and then on all of them. Prints the time per call, the scaling "
        "(N x time on 1 / time on N) and any collective in the compiled programs. Exit "
        "status 1 when a program communicates or only one device is present.",
    )
    scaling.add_argument("--quick", action="store_true", help="1 MiB per device")
    scaling.add_argument("--json", metavar="PATH", help="write the figures and the environment")
    scaling.add_argument("--seed", type=int, default=0, help="seed of the random data (default 0)")
    return parser


def unwritable(path: str, option: str) -> str | None:
    """Why ``path`` cannot take a command's output, in a few words; None if it can.

    Checked before a command runs, so that a long run never ends in a failed write.

    >>> unwritable("no/such/folder/x.json", "--json")
    '--json no/such/folder/x.json: no folder no/such/folder'
    """
    target = pathlib.Path(path)
    folder = target.parent
    if target.is_dir():
        return f"{option} {path}: is a folder, not a file"
    if not folder.is_dir():
        return f"{option} {path}: no folder {folder}"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"{option} {path}: not writable"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit status.

    >>> main(["bench", "--list", "--filter", "tile (2"])
    tile (2,2)	TILE	timed
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    # Each command's modules load once it is known: --help and --version, and a mistyped
    # command, answer without importing JAX (seconds on a cold start).
    from dmljax._src.bench import adversarial, command, scaling as scaling_module
    from dmljax._src.checking import selftest as selftest_module

    for option in ("json", "plot"):
        path = getattr(args, option, None)
        problem = None if path is None else unwritable(path, f"--{option}")
        if problem is not None:
            print(f"{_program()} {args.command}: {problem}", file=sys.stderr)
            return 2
    if args.command == "selftest":
        draws = len(selftest_module.DATA_DTYPES) if args.draws is None else args.draws
        if draws < 0:
            parser.error("--draws must be >= 0")
        return selftest_module.selftest(
            seed=args.seed, draws=draws, json_path=args.json, filters=args.filter
        )
    if args.command == "run":
        return _run_model(args.model, args.json)
    if args.command == "scaling":
        return scaling_module.scaling(quick=args.quick, json_path=args.json, seed=args.seed)
    if args.group == "adversarial":
        if args.plot or args.from_json:
            parser.error(
                "--group adversarial prints a table and writes --json; no --plot, no --from-json"
            )
        return adversarial.adversarial(
            quick=args.quick,
            json_path=args.json,
            filters=args.filter,
            list_only=args.list,
            seed=args.seed,
            out=sys.stdout,
            progress_out=sys.stderr,
        )
    if args.from_json is not None and (args.quick or args.json or args.list):
        parser.error("--from-json only prints (and with --plot, plots) a saved result")
    return command.bench(
        quick=args.quick,
        json_path=args.json,
        plot_path=args.plot,
        from_json=args.from_json,
        filters=args.filter,
        list_only=args.list,
        seed=args.seed,
    )


def _run_model(path: str, json_path: str | None) -> int:
    from dmljax._src.dxdispatch import load_dxdispatch
    from dmljax.errors import InvalidArgumentError

    try:
        model = load_dxdispatch(path)
        lines = model.run()
    except InvalidArgumentError as error:
        print(f"{_program()} run: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    if json_path is not None:
        document = {
            "printed": lines,
            # Each resource's initial values' count of elements; a mixed array's bytes.
            "resources": {
                name: list(r.data) if r.data_type is None else r.values().tolist()
                for name, r in model.resources.items()
            },
        }
        pathlib.Path(json_path).write_text(json.dumps(document, indent=2) + "\n")
    return 0


def run() -> int:
    """:func:`main` for a shell: output piped into a reader that stops early (``| head``)
    ends the command quietly, as Unix tools do."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the failed flush at exit: point stdout at nothing first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a killed writer
    return status


if __name__ == "__main__":
    sys.exit(run())
