"""Device telemetry: the sample record, the source protocol and the NVML source."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

from pixtreme.infer import _validate as v
from pixtreme.infer.errors import TelemetryUnavailableError, require_optional


@dataclass(frozen=True, slots=True, kw_only=True)
class TelemetrySample:
    """One reading of a device: identity, temperature, clocks and power."""

    timestamp_s: float
    device_uuid: str
    temperature_c: float
    sm_clock_mhz: float
    memory_clock_mhz: float
    power_w: float

    def __post_init__(self) -> None:
        owner = "TelemetrySample"
        v.non_empty_str(owner, "device_uuid", self.device_uuid)
        for field in (
            "timestamp_s",
            "temperature_c",
            "sm_clock_mhz",
            "memory_clock_mhz",
            "power_w",
        ):
            value = getattr(self, field)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                v.fail(
                    owner,
                    field,
                    value,
                    expected="a finite number",
                    how="convert the NVML reading with float(...) and check the device",
                )


class TelemetrySource(Protocol):
    """Anything that can be sampled from a background thread."""

    def sample(self) -> TelemetrySample:
        """Read the device now."""
        ...


class NvidiaTelemetrySource:
    """Reads an NVIDIA GPU through NVML (the ``verify`` extra, module ``pynvml``).

    Raises TelemetryUnavailableError when NVML's library or the device is absent.
    """

    def __init__(self, index: int = 0) -> None:
        v.positive_int("NvidiaTelemetrySource", "index", index, minimum=0)
        pynvml: Any = require_optional("pynvml", extra="verify")
        self._nvml = pynvml
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError_LibraryNotFound as error:
            raise TelemetryUnavailableError(
                why="NVIDIA telemetry needs the NVML library that the NVIDIA driver installs",
                what=f"pynvml.nvmlInit() raised NVMLError_LibraryNotFound ({error})",
                how="run on a machine with an NVIDIA driver, or measure without telemetry "
                "(telemetry=None)",
            ) from error
        except pynvml.NVMLError as error:
            raise TelemetryUnavailableError(
                why="NVIDIA telemetry needs a working NVML",
                what=f"pynvml.nvmlInit() raised {type(error).__name__} ({error})",
                how="check the NVIDIA driver (nvidia-smi), or measure without telemetry",
            ) from error
        try:
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            uuid = pynvml.nvmlDeviceGetUUID(self._handle)
        except pynvml.NVMLError as error:
            pynvml.nvmlShutdown()
            raise TelemetryUnavailableError(
                why=f"NVIDIA telemetry needs GPU index {index} to exist",
                what=f"NVML raised {type(error).__name__} ({error})",
                how="pass the index of an installed GPU (see nvidia-smi -L)",
            ) from error
        self.device_uuid = uuid.decode() if isinstance(uuid, bytes) else str(uuid)
        self._closed = False

    def sample(self) -> TelemetrySample:
        """Read temperature, SM and memory clocks and power of the device now."""
        nvml = self._nvml
        handle = self._handle
        return TelemetrySample(
            timestamp_s=time.monotonic(),
            device_uuid=self.device_uuid,
            temperature_c=float(nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU)),
            sm_clock_mhz=float(nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM)),
            memory_clock_mhz=float(nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM)),
            power_w=float(nvml.nvmlDeviceGetPowerUsage(handle)) / 1000.0,
        )

    def close(self) -> None:
        """Shut NVML down for this source; idempotent."""
        if not self._closed:
            self._closed = True
            self._nvml.nvmlShutdown()
