"""The plant device library (00_conventions.md D01-D28) as array-based njit state machines.

``protocol`` documents the common layout (parameter/state dtypes, one row per condition and
unit, ``tick``/``sense`` functions in integer ticks); ``safety`` holds the S-code predicates;
``scripts`` the operator/disturbance events. docs/devices.md lists what is implemented.
"""
