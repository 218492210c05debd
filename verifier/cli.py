"""The `plantloop` command line (typer + rich); each command lives in its own `cmd_*` module.

Exit codes everywhere: 0 success / reward 1, 1 reward 0 or failed check, 2 usage or input error.
"""

from __future__ import annotations

import sys

import typer

from verifier.cmd_audit import audit
from verifier.cmd_check import check
from verifier.cmd_fuzz import fuzz
from verifier.cmd_harbor import harbor_export
from verifier.cmd_profile import profile
from verifier.cmd_report import report
from verifier.cmd_run import run
from verifier.cmd_scan import scan
from verifier.cmd_tasks import show, tasks
from verifier.cmd_trace import trace
from verifier.cmd_verify import verify
from verifier.console import err

app = typer.Typer(
    name="plantloop",
    help="Closed-loop verifier for IEC 61131-3 Structured Text programs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("check")(check)
app.command("report")(report)
app.command("run")(run)
app.command("verify")(verify)
app.command("tasks")(tasks)
app.command("show")(show)
app.command("scan")(scan)
app.command("trace")(trace)
app.command("harbor-export")(harbor_export)
app.command("profile")(profile)
app.command("audit")(audit)
app.command("fuzz")(fuzz)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print("plantloop: interrupted")
        sys.exit(130)
