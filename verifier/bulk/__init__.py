"""Bulk evaluation: a submissions tree in, a result tree out (DESIGN.md section 4).

`jobs` finds what is left to do, `isolate` runs one job in a forked child under time and
memory limits, `pool` (one machine) and `distributed` (dask) run many, `run` writes the
results and keeps the tally. `verifier/cmd_run.py` is the command line on top.
"""
