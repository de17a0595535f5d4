"""Proton's modes (`triton.profiler.mode`): what a session collects beyond the call tree and the
GPU activity. protond knows PCSampling; start(mode=...) takes one of these or its text
("pcsampling:interval=1000"), which the shim checks (common/mode/session_mode.h)."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BaseMode:
    name: str


@dataclass(frozen=True)
class PCSampling(BaseMode):
    """CUPTI's PC sampling with stall reasons, a sample every `interval` cycles (protond rounds
    it to the nearest power of two; docs/pc-sampling.md)."""
    name: str = field(default="pcsampling", init=False)
    interval: int = 1000

    def __post_init__(self):
        if self.interval <= 0:
            raise ValueError("Interval must be a positive integer.")

    def __str__(self):
        return f"{self.name}:interval={self.interval}"
