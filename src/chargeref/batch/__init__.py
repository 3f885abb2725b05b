"""Many rulings at once: threat maps and sweeps, on a process pool or Dask."""

from .sweep import sweep
from .threat import ThreatMap, combined, threat_at, threat_map

__all__ = ["ThreatMap", "combined", "sweep", "threat_at", "threat_map"]
