"""Readers that turn result directories into `Trial`s.

Two layouts, told apart per file so one call may mix them:

- plantloop result trees `DIR/<model>/<TASK-ID>/<trial>.json` (verifier/results.py);
- Harbor job directories `jobs/<job>/<task>__<suffix>/result.json` (TrialResult). The
  model is `agent_info.model_info.name`, else the agent name; the reward is
  `verifier_result.rewards["reward"]` (or the only key). As in Harbor, a trial whose reward
  is not valid (`reward_valid` false, no verifier result) has no reward: it is errored.

Nothing that looks like a trial is dropped silently: an unreadable or invalid result inside
a task directory becomes an errored trial, anything else ignored is listed in `problems`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from verifier.results import ResultError, load_result
from verifier.trials import TASK_ID, Trial

HARBOR_RESULT = "result.json"
INVALID_RESULT = "invalid-result"


@dataclass
class Loaded:
    trials: list[Trial] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_trials(dirs: list[Path]) -> Loaded:
    """Every trial found under the given directories (each must exist)."""
    loaded = Loaded()
    for root in dirs:
        if not root.is_dir():
            raise FileNotFoundError(f"no such directory: {root}")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            here = Path(dirpath)
            if "config.json" in filenames and {HARBOR_RESULT, "lock.json"} & set(filenames):
                _read_harbor_dir(here, dirnames, loaded)
                continue
            for name in sorted(filenames):
                if name.endswith(".json"):
                    _read_plantloop_file(here / name, loaded)
    return loaded


def _read_harbor_dir(here: Path, dirnames: list[str], loaded: Loaded) -> None:
    """A Harbor job dir (descend into trials) or trial dir (read it, do not descend)."""
    config = _read_json(here / "config.json")
    is_trial = isinstance(config, dict) and "trial_name" in config
    if not is_trial:
        return  # a job directory: its trials are subdirectories
    dirnames.clear()  # agent/, verifier/, artifacts/ hold no further trials
    data = _read_json(here / HARBOR_RESULT)
    if not (isinstance(data, dict) and "trial_name" in data and "task_name" in data):
        loaded.problems.append(f"{here}: Harbor trial without a readable result.json, ignored")
    elif data.get("finished_at") is None:
        loaded.problems.append(f"{here}: Harbor trial not finished, ignored")
    else:
        loaded.trials.append(harbor_trial(data, here / HARBOR_RESULT))


def harbor_trial(data: dict, origin: Path | str = "") -> Trial:
    """One Harbor TrialResult as a Trial."""
    agent = data.get("agent_info") or {}
    model_info = agent.get("model_info") or {}
    model = model_info.get("name") or agent.get("name") or "unknown"
    task = str(data["task_name"]).rsplit("/", 1)[-1]
    exception = (data.get("exception_info") or {}).get("exception_type")
    rewards = (data.get("verifier_result") or {}).get("rewards")
    reward: float | None = None
    error = exception
    if data.get("reward_valid", True) and isinstance(rewards, dict) and rewards:
        value = rewards.get("reward") if "reward" in rewards else None
        if value is None and len(rewards) == 1:
            value = next(iter(rewards.values()))
        if isinstance(value, int | float) and not isinstance(value, bool):
            reward = float(value)
        else:
            error = error or "no-reward-key"
    else:
        error = error or "no-reward"
    return Trial(model, task, str(data["trial_name"]), reward, error, str(origin))


def _read_plantloop_file(path: Path, loaded: Loaded) -> None:
    task_dir, model_dir = path.parent.name, path.parent.parent.name
    in_task_dir = TASK_ID.match(task_dir) is not None
    try:
        result = load_result(path)
    except ResultError as exc:
        if in_task_dir:
            loaded.trials.append(
                Trial(model_dir, task_dir, path.stem, None, INVALID_RESULT, str(path))
            )
            loaded.problems.append(f"{path}: {exc} (counted as an errored trial)")
        else:
            loaded.problems.append(f"{path}: not a plantloop result, ignored")
        return
    task = result["task"]["id"]
    if in_task_dir and task != task_dir:
        loaded.problems.append(f"{path}: result is for {task}, directory says {task_dir}")
    errored = result.get("error") is not None
    reward = None if errored else float(result["reward"])
    error = result["error"]["kind"] if errored else None
    loaded.trials.append(Trial(model_dir, task, path.stem, reward, error, str(path)))


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
