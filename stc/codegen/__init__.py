"""ST -> Python source for numba: layout, per-construct lowering, assembly, njit + disk cache."""
