"""`python -m protond.profiler [options] script.py [args]`: Proton's `proton` launcher
(proton.py)."""
from .proton import main

main()
