"""The textX grammar of the plantloop ST dialect (`st.tx`), shipped as package data."""

from pathlib import Path

GRAMMAR_FILE = Path(__file__).with_name("st.tx")
