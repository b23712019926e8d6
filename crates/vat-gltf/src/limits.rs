//! Limits shared by the loader and its decoders. A leaf module: it names nothing
//! else of this crate, so any module may use it without closing a circle.

/// A scene may have at most this many points (every mesh instance counted): about
/// 340 MiB of per-point data, far past anything a vertex animation texture holds.
pub const MAX_POINTS: usize = 1 << 22;
