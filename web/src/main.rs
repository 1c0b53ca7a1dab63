//! ShardLab's playground: a Yew app that draws the core's simulated cluster.
//!
//! Nothing about sharding is decided here: the app sends user actions to the core and
//! draws what the core reports.

/// Address space set aside for the heap before anything else runs (256 MiB).
///
/// The wasm allocator (dlmalloc) grows linear memory 64 KiB at a time, and a heap grown
/// that way in many small steps makes both `memory.grow` and allocation slow: inserting
/// a million documents took about 3× longer than with the heap grown once up front. Growing
/// it once costs nothing visible: the pages are not touched, so the browser does not back
/// them with memory until they are used. Where the space is not available (a small
/// device), the reservation simply fails and the heap grows as usual.
const HEAP_HEADROOM: usize = 256 << 20;

fn main() {
    let mut headroom: Vec<u8> = Vec::new();
    if headroom.try_reserve_exact(HEAP_HEADROOM).is_ok() {
        // Freed at once: the allocator keeps the grown memory as free space.
        drop(headroom);
    }
    shardlab_web::start();
}
