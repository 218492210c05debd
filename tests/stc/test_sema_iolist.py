"""The I/O list: located variables and direct addresses with canonical addresses (§2.3)."""

from __future__ import annotations

from stc.frontend import IOPoint, check_source

SINGLE = """VAR_GLOBAL
  gRun AT %qx0.0 : BOOL;
END_VAR
PROGRAM Main
VAR
  start AT %IX0.3 : BOOL;
  stop AT %I0.4 : BOOL;
  level AT %IW140 : INT;
  flow AT %QD8 : REAL;
  big AT %ML16 : LREAL;
  named AT %I* : INT;
END_VAR
%QX1.2 := start AND NOT stop;
%QX1.2 := FALSE;
END_PROGRAM
"""


def test_io_points_of_a_single_program() -> None:
    result = check_source(SINGLE)
    assert result.diagnostics.items == []
    assert [(p.address, p.type, p.direction, p.name) for p in result.io] == [
        ("%QX0.0", "BOOL", "output", "gRun"),
        ("%IX0.3", "BOOL", "input", "start"),
        ("%IX0.4", "BOOL", "input", "stop"),
        ("%IW140", "INT", "input", "level"),
        ("%QD8", "REAL", "output", "flow"),
        ("%ML16", "LREAL", "memory", "big"),
        ("%I*", "INT", "input", "named"),
        ("%QX1.2", "BOOL", "output", ""),
    ]
    start = result.io[1]
    assert start == IOPoint("%IX0.3", "I", "X", 0, 3, "BOOL", "input", "start", 6, 3)
    assert result.io[6].size is None and result.io[6].index is None


def test_configuration_instances_prefix_names() -> None:
    text = ("CONFIGURATION C\nRESOURCE R ON PLC\nPROGRAM plc1 : Main;\nEND_RESOURCE\nEND_CONFIGURATION\n"
            "PROGRAM Main\nVAR x AT %IX0.0 : BOOL; END_VAR\nEND_PROGRAM\n")
    result = check_source(text)
    assert [(p.address, p.name) for p in result.io] == [("%IX0.0", "plc1.x")]


def test_to_json_lists_io_and_diagnostics() -> None:
    result = check_source(SINGLE, "plant.st")
    data = result.to_json()
    assert data["file"] == "plant.st" and data["ok"] is True and data["diagnostics"] == []
    assert data["io"][1] == {"address": "%IX0.3", "area": "I", "size": "X", "index": 0, "bit": 3,
                             "type": "BOOL", "direction": "input", "name": "start", "line": 6, "column": 3}


def test_byte_size_and_types_must_match_the_address() -> None:
    text = "PROGRAM Main\nVAR\n  a AT %IB0 : SINT;\n  b AT %QW2 : DINT;\n  c AT %ID4 : UDINT;\nEND_VAR\nEND_PROGRAM\n"
    result = check_source(text)
    assert [d.header() for d in result.diagnostics.sorted()] == [
        "<input>:4:8: error: located variable 'b' of type DINT does not fit %QW2 (size W needs INT/UINT/WORD)"]
    assert [p.address for p in result.io] == ["%IB0", "%ID4"]
