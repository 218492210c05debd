"""Text templates of an exported Harbor task (docs/harbor.md explains every choice).

Kept as Python strings, not data files, so they ship with the package whatever the
packaging rules. Placeholders are `@NAME@`; only validated task ids, version numbers and
file names are ever substituted, never task prose (that goes into instruction.md alone).
"""

from __future__ import annotations

AGENT_DOCKERFILE = """\
# Agent environment of plantloop task @TASK_ID@: an empty /app and nothing else.
# There is deliberately no PLC compiler, simulator or task data here: the agent writes
# /app/program.st from the instruction alone, and only that file leaves this container.
FROM ubuntu:24.04
WORKDIR /app
"""

VERIFIER_DOCKERFILE = """\
# Separate verifier environment of plantloop task @TASK_ID@ (build context: tests/).
# Harbor copies only the artifact /app/program.st in here after the agent has finished.
FROM python:@PYTHON@-slim-bookworm
ENV PIP_NO_CACHE_DIR=1 \\
    PIP_DISABLE_PIP_VERSION_CHECK=1 \\
    PLANTLOOP_CACHE_DIR=/opt/plantloop/cache \\
    NUMBA_CACHE_DIR=/opt/plantloop/numba-cache
# plantloop @VERSION@ from the source archive made at export time, its dependencies pinned
# to the versions the export was made with.
COPY requirements.txt @ARCHIVE@ /opt/plantloop/
RUN pip install -r /opt/plantloop/requirements.txt \\
    && pip install --no-deps /opt/plantloop/@ARCHIVE@
COPY test.sh reference.st /tests/
# Verifying the reference once compiles this task's kernel into the cache (so a trial only
# compiles the submitted program) and refuses to build an image whose reference fails.
RUN chmod 755 /tests/test.sh \\
    && plantloop verify /tests/reference.st --task @TASK_ID@ \\
    && chmod -R a+rwX /opt/plantloop
WORKDIR /app
"""

TEST_SH = """\
#!/bin/bash
# Grade the submitted program of plantloop task @TASK_ID@ and write Harbor's reward file.
#   reward.json   {"reward": 1} iff `plantloop verify` passed every condition, else 0
#   result.json   the full plantloop result (schema plantloop.result/1), beside it
# A missing program or a verification over the time limit scores 0. A verifier crash
# writes no reward, so Harbor reports an error instead of a silent 0.
# The paths can be overridden for a run outside the container (tests do).
set -u
PROGRAM="${PLANTLOOP_PROGRAM:-/app/program.st}"
OUT_DIR="${PLANTLOOP_VERIFIER_DIR:-/logs/verifier}"
PLANTLOOP="${PLANTLOOP_BIN:-plantloop}"
LIMIT_S="${PLANTLOOP_VERIFY_TIMEOUT:-@VERIFY_TIMEOUT@}"

mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR/reward.json" "$OUT_DIR/result.json"

write_reward() {
    printf '{"reward": %d}\\n' "$1" > "$OUT_DIR/reward.json"
    echo "reward: $1"
}

if [ ! -f "$PROGRAM" ]; then
    echo "no program was submitted at $PROGRAM"
    write_reward 0
    exit 0
fi

timeout "$LIMIT_S" "$PLANTLOOP" verify "$PROGRAM" --task @TASK_ID@ --json "$OUT_DIR/result.json"
status=$?

if [ "$status" -eq 124 ]; then
    echo "verification did not finish within $LIMIT_S s"
    write_reward 0
elif [ "$status" -eq 0 ] && [ -f "$OUT_DIR/result.json" ]; then
    write_reward 1
elif [ "$status" -eq 1 ] && [ -f "$OUT_DIR/result.json" ]; then
    write_reward 0
else
    echo "plantloop verify failed (exit $status) without a result: verifier error"
    exit 1
fi
"""

SOLVE_SH = """\
#!/bin/bash
# Oracle solution of plantloop task @TASK_ID@: submit the task's reference program.
set -euo pipefail
mkdir -p /app
cp /solution/program.st /app/program.st
"""

SUBMISSION = """\
## Submission

Write your program as **one Structured Text file at `/app/program.st`** (one `PROGRAM`,
its I/O declared as located variables with the addresses and types of the I/O map above).
Only that file is graded. After you finish it is copied into a separate verifier
environment, which runs `plantloop verify /app/program.st --task @TASK_ID@`: it compiles
the program and runs it in closed loop against the simulated plant on every test condition
of this task. The reward is 1 if every condition is completed with no safety violation and
no runtime error, otherwise 0; a program that does not compile or does not match the I/O
map scores 0.

This environment has **no PLC compiler and no simulator**: check your program against the
specification, the I/O map and the language notes by reading it carefully.
"""
