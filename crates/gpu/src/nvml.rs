//! Clocks, throttle reasons, temperature and the driver version from the NVIDIA management
//! library, opened at run time (`libnvidia-ml.so.1`) so that the harness builds and runs where
//! it is missing; then the record simply carries no clocks.

use aorlta_record::kernel::harness::Clocks;
use libloading::{Library, Symbol};
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_ulonglong, c_void};

type Device = *mut c_void;

/// An open management library with one device's handle.
pub struct Nvml {
    lib: Library,
    device: Device,
}

impl Nvml {
    /// Opens the library and finds the device with this `GPU-…` UUID; `None` when either fails.
    pub fn open(uuid: &str) -> Option<Self> {
        // SAFETY: loading the system's management library runs its initialisers, which are the
        // vendor's; the symbols are called with the documented signatures.
        unsafe {
            let lib = Library::new("libnvidia-ml.so.1").ok()?;
            let init: Symbol<unsafe extern "C" fn() -> c_int> = lib.get(b"nvmlInit_v2\0").ok()?;
            if init() != 0 {
                return None;
            }
            let by_uuid: Symbol<unsafe extern "C" fn(*const c_char, *mut Device) -> c_int> =
                lib.get(b"nvmlDeviceGetHandleByUUID\0").ok()?;
            let c = CString::new(uuid).ok()?;
            let mut device: Device = std::ptr::null_mut();
            if by_uuid(c.as_ptr(), &mut device) != 0 {
                return None;
            }
            Some(Nvml { lib, device })
        }
    }

    /// The driver's version string.
    pub fn driver_version(&self) -> Option<String> {
        // SAFETY: the buffer is larger than NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE (80).
        unsafe {
            let f: Symbol<unsafe extern "C" fn(*mut c_char, c_uint) -> c_int> =
                self.lib.get(b"nvmlSystemGetDriverVersion\0").ok()?;
            let mut buf = [0 as c_char; 96];
            if f(buf.as_mut_ptr(), buf.len() as c_uint) != 0 {
                return None;
            }
            Some(CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned())
        }
    }

    /// Current SM and memory clocks, throttle reasons and temperature.
    pub fn clocks(&self) -> Option<Clocks> {
        // SAFETY: documented signatures; the device handle came from the same library.
        unsafe {
            let clock: Symbol<unsafe extern "C" fn(Device, c_int, *mut c_uint) -> c_int> =
                self.lib.get(b"nvmlDeviceGetClockInfo\0").ok()?;
            let (mut sm, mut mem) = (0 as c_uint, 0 as c_uint);
            if clock(self.device, 1, &mut sm) != 0 || clock(self.device, 2, &mut mem) != 0 {
                return None;
            }
            let reasons: Option<Symbol<unsafe extern "C" fn(Device, *mut c_ulonglong) -> c_int>> = self
                .lib
                .get(b"nvmlDeviceGetCurrentClocksEventReasons\0")
                .or_else(|_| self.lib.get(b"nvmlDeviceGetCurrentClocksThrottleReasons\0"))
                .ok();
            let mut mask: c_ulonglong = 0;
            if let Some(f) = reasons
                && f(self.device, &mut mask) != 0
            {
                mask = 0;
            }
            let temp: Option<Symbol<unsafe extern "C" fn(Device, c_int, *mut c_uint) -> c_int>> =
                self.lib.get(b"nvmlDeviceGetTemperature\0").ok();
            let mut t: c_uint = 0;
            if let Some(f) = temp
                && f(self.device, 0, &mut t) != 0
            {
                t = 0;
            }
            Some(Clocks {
                sm_mhz: sm,
                mem_mhz: mem,
                throttle_reasons: mask,
                temperature_c: t,
            })
        }
    }
}
