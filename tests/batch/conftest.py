"""The batch tests import their helpers (threat_helpers) by bare name."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
