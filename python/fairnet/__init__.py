"""fairnet: weighted bandwidth allocation in datacenter networks.

The exact weighted max-min oracle (:func:`allocate`, :func:`check_allocation`), topology
builders and generated workloads, and scenario runs (:func:`run`), with the simulation engines
and the five published systems growing around them. See ``docs/`` in the repository.
"""

from fairnet._core import __version__
from fairnet.alloc import Allocation, CheckReport, allocate, check_allocation
from fairnet.runner import Results, run

__all__ = [
    "Allocation",
    "CheckReport",
    "Results",
    "allocate",
    "check_allocation",
    "run",
    "__version__",
]
