//! Clocks, throttle reasons, temperature and the driver version from the NVIDIA management
//! library, through `nvml-wrapper`, which opens `libnvidia-ml.so.1` at run time: the harness
//! builds and runs where the library is missing, and the record then simply carries no clocks.

use aorlta_record::Clocks;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use std::ffi::OsStr;

/// The library's name as the driver installs it (the unversioned `libnvidia-ml.so` that
/// `nvml-wrapper` looks for by default comes only with the development files).
const LIBRARY: &str = "libnvidia-ml.so.1";

/// An open management library and the UUID of the device it reports on.
pub(crate) struct Nvml {
    nvml: nvml_wrapper::Nvml,
    uuid: String,
}

impl Nvml {
    /// Opens the library and finds the device with this `GPU-…` UUID; `None` when either fails.
    pub(crate) fn open(uuid: &str) -> Option<Self> {
        let nvml = nvml_wrapper::Nvml::builder()
            .lib_path(OsStr::new(LIBRARY))
            .init()
            .ok()?;
        nvml.device_by_uuid(uuid).ok()?;
        Some(Nvml {
            nvml,
            uuid: uuid.to_string(),
        })
    }

    /// The driver's version string.
    pub(crate) fn driver_version(&self) -> Option<String> {
        self.nvml.sys_driver_version().ok()
    }

    /// Current SM and memory clocks, throttle reasons and temperature (a reason mask or a
    /// temperature the device does not report reads 0).
    pub(crate) fn clocks(&self) -> Option<Clocks> {
        let device = self.nvml.device_by_uuid(self.uuid.as_str()).ok()?;
        let sm_mhz = device.clock_info(Clock::SM).ok()?;
        let mem_mhz = device.clock_info(Clock::Memory).ok()?;
        // Every reason bit NVML defines has a flag, so the truncation drops none of them.
        let throttle_reasons = device.current_throttle_reasons().map_or(0, |r| r.bits());
        let temperature_c = device.temperature(TemperatureSensor::Gpu).unwrap_or(0);
        Some(Clocks {
            sm_mhz,
            mem_mhz,
            throttle_reasons,
            temperature_c,
        })
    }
}
