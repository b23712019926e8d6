//! What meshoptimizer's C++ takes from a C++ runtime, for WebAssembly (the npm
//! package's module, runtimes/cli): `operator new` and `operator delete`, its only
//! two, on the C library's allocator. A native build links the system's C++ library.

use std::ffi::c_void;

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
}

/// `operator new(size_t)`: never null (C++ would throw; there is no catching here).
#[no_mangle]
extern "C" fn _Znwm(size: usize) -> *mut c_void {
    // SAFETY: malloc takes any size; the block is released by `_ZdlPv` below.
    let block = unsafe { malloc(size.max(1)) };
    if block.is_null() {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::from_size_align(size, 1).unwrap_or(std::alloc::Layout::new::<u8>()),
        );
    }
    block
}

/// `operator delete(void*)`.
#[no_mangle]
extern "C" fn _ZdlPv(pointer: *mut c_void) {
    // SAFETY: `pointer` is null or came from `_Znwm`, that is from malloc.
    unsafe { free(pointer) }
}
