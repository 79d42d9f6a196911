//! The fake device's memory: allocations are host vectors at real, spaced-out addresses; an
//! access outside every allocation is a fault, as on the device.

use crate::backend::DevPtr;
use std::collections::BTreeMap;

/// Device memory of the fake device.
#[derive(Debug)]
pub(crate) struct Memory {
    allocs: BTreeMap<DevPtr, Vec<u8>>,
    next_addr: DevPtr,
    /// Total bytes the device holds.
    pub capacity: u64,
}

impl Memory {
    /// An empty memory of `capacity` bytes.
    pub(crate) fn new(capacity: u64) -> Self {
        Memory {
            allocs: BTreeMap::new(),
            next_addr: 0x7f00_0000_0000,
            capacity,
        }
    }

    /// A new zeroed allocation (64 KiB apart, like the driver's granularity).
    pub(crate) fn alloc(&mut self, bytes: usize) -> DevPtr {
        let addr = self.next_addr;
        self.next_addr += (bytes as u64).div_ceil(1 << 16).max(1) * (1 << 16) + (1 << 16);
        self.allocs.insert(addr, vec![0u8; bytes]);
        addr
    }

    /// Frees an allocation: its size, or `None` when `ptr` is not one.
    pub(crate) fn free(&mut self, ptr: DevPtr) -> Option<usize> {
        self.allocs.remove(&ptr).map(|v| v.len())
    }

    /// The allocation holding `[addr, addr + len)`: its base and the offset of `addr`.
    pub(crate) fn locate(&self, addr: DevPtr, len: usize) -> Option<(DevPtr, usize)> {
        let (&base, v) = self.allocs.range(..=addr).next_back()?;
        let off = (addr - base) as usize;
        (off + len <= v.len()).then_some((base, off))
    }

    /// The bytes at `[addr, addr + len)`, when they lie in one allocation.
    pub(crate) fn read(&self, addr: DevPtr, len: usize) -> Option<&[u8]> {
        let (base, off) = self.locate(addr, len)?;
        Some(&self.allocs[&base][off..off + len])
    }

    /// The bytes at `[addr, addr + len)` to write, when they lie in one allocation.
    pub(crate) fn slice_mut(&mut self, addr: DevPtr, len: usize) -> Option<&mut [u8]> {
        let (base, off) = self.locate(addr, len)?;
        self.allocs.get_mut(&base).map(|v| &mut v[off..off + len])
    }

    /// Writes bytes; false when they do not lie in one allocation.
    pub(crate) fn write(&mut self, addr: DevPtr, bytes: &[u8]) -> bool {
        match self.slice_mut(addr, bytes.len()) {
            Some(s) => {
                s.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// Every allocation's base and length.
    pub(crate) fn allocations(&self) -> Vec<(DevPtr, usize)> {
        self.allocs.iter().map(|(k, v)| (*k, v.len())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_stay_inside_one_allocation() {
        let mut m = Memory::new(1 << 30);
        let a = m.alloc(100);
        let b = m.alloc(10);
        assert!(b > a + 100);
        assert!(m.write(a + 96, &[1, 2, 3, 4]));
        assert!(!m.write(a + 97, &[1, 2, 3, 4]));
        assert_eq!(m.read(a + 96, 2), Some(&[1u8, 2][..]));
        assert!(m.read(a + 200, 1).is_none());
        assert_eq!(m.locate(b + 3, 7), Some((b, 3)));
        assert!(m.free(a).is_some());
        assert!(m.free(a).is_none());
        assert!(m.read(a, 1).is_none());
    }
}
