"""Many rulings at once: threat maps and sweeps, on a process pool or Dask."""

from .sweep import sweep
from .threat import ThreatMap, threat_map

__all__ = ["ThreatMap", "sweep", "threat_map"]
