"""verifier — binds compiled programs to tasks, runs the closed loop, judges and aggregates."""

__version__ = "0.1.0"
