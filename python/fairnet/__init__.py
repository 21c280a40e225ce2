"""fairnet: weighted bandwidth allocation in datacenter networks.

The exact weighted max-min oracle (:func:`allocate`, :func:`check_allocation`), topology
builders and generated workloads, scenario runs (:func:`run`) and the papers' fluid and map
models (:func:`model`), with the simulation engines and the five published systems growing
around them. See ``docs/`` in the repository.
"""

from fairnet._core import __version__
from fairnet.alloc import Allocation, CheckReport, allocate, check_allocation
from fairnet.model import model
from fairnet.runner import Results, run

__all__ = [
    "Allocation",
    "CheckReport",
    "Results",
    "allocate",
    "check_allocation",
    "model",
    "run",
    "__version__",
]
