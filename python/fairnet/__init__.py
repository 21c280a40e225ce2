"""fairnet: weighted bandwidth allocation in datacenter networks.

The exact weighted max-min oracle (:func:`allocate`, :func:`check_allocation`), topology
builders and generated workloads, with the simulation engines and the five published systems
growing around them. See ``docs/`` in the repository.
"""

from fairnet._core import __version__
from fairnet.alloc import Allocation, CheckReport, allocate, check_allocation

__all__ = ["Allocation", "CheckReport", "allocate", "check_allocation", "__version__"]
