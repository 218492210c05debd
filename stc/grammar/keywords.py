"""Reserved words of the dialect (ST_LANGUAGE.md section 1): never usable as names.

The grammar's ID rule encodes this list as a prefix-tree regular expression (fast to
reject); tests/stc/test_parser.py checks that both agree. Names of elementary types and
standard functions are not reserved here: they are ordinary identifiers to the parser and
the semantic pass forbids redeclaring them.
"""

RESERVED = frozenset({
    # POUs and blocks
    "PROGRAM", "END_PROGRAM", "FUNCTION", "END_FUNCTION", "FUNCTION_BLOCK",
    "END_FUNCTION_BLOCK", "METHOD", "END_METHOD", "PROPERTY", "END_PROPERTY", "INTERFACE",
    "END_INTERFACE", "ACTION", "END_ACTION", "CONFIGURATION", "END_CONFIGURATION",
    "RESOURCE", "END_RESOURCE", "ON", "TASK", "WITH",
    # declarations
    "VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_TEMP", "VAR_GLOBAL", "VAR_EXTERNAL",
    "VAR_STAT", "VAR_INST", "VAR_ACCESS", "VAR_CONFIG", "END_VAR", "CONSTANT", "RETAIN",
    "PERSISTENT", "NON_RETAIN", "AT", "TYPE", "END_TYPE", "STRUCT", "END_STRUCT", "UNION",
    "END_UNION", "ARRAY", "OF", "STRING", "WSTRING", "POINTER", "REFERENCE",
    # statements
    "IF", "THEN", "ELSIF", "ELSEIF", "ELSE", "END_IF", "CASE", "END_CASE", "FOR", "TO", "BY",
    "DO", "END_FOR", "WHILE", "END_WHILE", "REPEAT", "UNTIL", "END_REPEAT", "EXIT",
    "CONTINUE", "RETURN", "JMP", "__TRY", "__CATCH", "__FINALLY", "__ENDTRY",
    # operators and literals
    "AND", "OR", "XOR", "NOT", "MOD", "AND_THEN", "OR_ELSE", "TRUE", "FALSE",
    # object orientation (rejected) and SFC (rejected)
    "THIS", "SUPER", "EXTENDS", "IMPLEMENTS", "ABSTRACT", "FINAL",
    "STEP", "END_STEP", "INITIAL_STEP", "TRANSITION", "END_TRANSITION",
})
