"""The bundled content packs (base_3to5, wars_of_italy), installed as package data so that
every `rulespec` command finds them by id from any directory."""
from pathlib import Path

PACKS_DIR = Path(__file__).resolve().parent
