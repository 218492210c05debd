"""Find task declarations: every sub-package of `plants.tasks` that defines `TASK`.

Adding a task is adding a folder (`plants/tasks/mot_e01/` with `__init__.py` declaring
`TASK`, its plant module and its reference program); nothing else needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import plants.tasks as _pkg
from plants.tasks.spec import LEVELS, TaskSpec


class UnknownTaskError(KeyError):
    def __init__(self, task_id: str) -> None:
        super().__init__(task_id)
        self.task_id = task_id

    def __str__(self) -> str:
        return f"unknown task {self.task_id!r} (see `plantloop tasks`)"


@cache
def all_tasks() -> dict[str, TaskSpec]:
    """Every declared task by id, in id order."""
    found: dict[str, TaskSpec] = {}
    for info in pkgutil.iter_modules(_pkg.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{_pkg.__name__}.{info.name}")
        task = getattr(module, "TASK", None)
        if isinstance(task, TaskSpec):
            found[task.id] = task
    return dict(sorted(found.items()))


def get_task(task_id: str) -> TaskSpec:
    task = all_tasks().get(task_id.upper())
    if task is None:
        raise UnknownTaskError(task_id)
    return task


def select_tasks(suite: str | None = None, level: str | None = None) -> list[TaskSpec]:
    """Tasks of a suite (MOT|MAT) and/or a level (easy|medium|hard or E|M|H)."""
    level_name = LEVELS.get(level.upper(), level.lower()) if level else None
    return [
        t
        for t in all_tasks().values()
        if (suite is None or t.suite == suite.upper()) and (level_name is None or t.level == level_name)
    ]
