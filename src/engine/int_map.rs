//! Maps keyed by integers read from logs (process ids, unit ids), looked
//! up for every line a process writes: where SipHash would cost more than
//! the rest of routing the line, an id is hashed by a few multiplications
//! and shifts (murmur3's finaliser) after mixing in a key drawn once per
//! process, so a log cannot pick ids that collide ahead of time.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::OnceLock;

/// A map from integers; [`IntMap::default`] makes an empty one.
pub(super) type IntMap<K, V> = HashMap<K, V, IntKeys>;

/// Builds [`IntHasher`]s with this process's key.
#[derive(Debug, Clone, Copy)]
pub(super) struct IntKeys {
    key: u64,
}

impl Default for IntKeys {
    fn default() -> Self {
        static KEY: OnceLock<u64> = OnceLock::new();
        IntKeys { key: *KEY.get_or_init(|| RandomState::new().hash_one(0u64)) }
    }
}

impl BuildHasher for IntKeys {
    type Hasher = IntHasher;

    fn build_hasher(&self) -> IntHasher {
        IntHasher { key: self.key, state: 0 }
    }
}

/// Hashes integers: each is mixed into the state with the key, and the
/// state is scrambled so that every bit of the id reaches the bits that
/// pick a bucket.
pub(super) struct IntHasher {
    key: u64,
    state: u64,
}

impl Hasher for IntHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.state = scramble(self.state ^ n ^ self.key);
    }

    fn finish(&self) -> u64 {
        self.state
    }
}

/// murmur3's 64-bit finaliser: a bijection in which each input bit flips
/// each output bit about half the time.
fn scramble(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_share_their_low_bits_land_in_different_buckets() {
        // Process ids 4096 apart agree in their low 12 bits, which pick a
        // bucket in a table of 4096: a hash that kept them would put all
        // 64 ids in one (64 random buckets of 4096 collide about once).
        let keys = IntKeys::default();
        let buckets: std::collections::HashSet<u64> =
            (1..=64u32).map(|i| keys.hash_one(i * 4096) & 4095).collect();
        assert!(buckets.len() > 48, "{} buckets for 64 ids", buckets.len());
        let mut map: IntMap<u32, u64> = IntMap::default();
        for pid in (0..10_000u32).step_by(7) {
            map.insert(pid, u64::from(pid) * 2);
        }
        assert!((0..10_000u32).step_by(7).all(|pid| map.get(&pid) == Some(&(u64::from(pid) * 2))));
        assert_eq!(map.get(&1), None);
    }
}
