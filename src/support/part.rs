//! What the core knows of the browser's engine loading in parts (ARCHITECTURE.md, "The
//! engine in two parts"): code that a first visit does not run is reached only through
//! functions the engine's second part installs when it loads ([`Later`]). Until it has, a
//! statement that needs one fails before it does anything, and says so in two ways: its
//! error (`ClusterError::PartNotLoaded`, worded by the layer that raises it), and the
//! flag [`take_wanted`] reads, by which the engine knows to load the part, put the
//! session back as it was before the request, and run the request again.
//!
//! When the part could not load, the host says why ([`failed`]): a statement that needs
//! it then fails with that reason and does not ask for the part again; the host forgets
//! the reason once that request is answered, so the next one tries again.
//!
//! Natively, and in every build but the browser's, the core names these functions
//! itself and nothing here is used.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// Functions (a `Copy` value holding them) that the engine's second part installs.
pub struct Later<T: Copy + 'static> {
    installed: OnceLock<T>,
}

impl<T: Copy + 'static> Later<T> {
    /// Nothing installed yet.
    pub const fn new() -> Self {
        Later {
            installed: OnceLock::new(),
        }
    }

    /// Installs them (the first installed stay).
    pub fn install(&self, value: T) {
        let _ = self.installed.set(value);
    }

    /// Whether they are installed.
    pub fn ready(&self) -> bool {
        self.installed.get().is_some()
    }

    /// The functions, or, before they are installed, `None` having asked for the part
    /// (unless it could not load: see [`failure`]).
    pub fn get(&self) -> Option<T> {
        let got = self.installed.get().copied();
        if got.is_none() {
            want();
        }
        got
    }
}

impl<T: Copy + 'static> Default for Later<T> {
    fn default() -> Self {
        Later::new()
    }
}

static FAILURE: Mutex<Option<String>> = Mutex::new(None);
static WANTED: AtomicBool = AtomicBool::new(false);

/// Records why the part could not load (`Some`), or forgets it (`None`): while a reason
/// is recorded, a statement that needs the part fails with it instead of asking for the
/// part.
pub fn failed(why: Option<String>) {
    if let Ok(mut failure) = FAILURE.lock() {
        *failure = why;
    }
}

/// Why the part could not load, while the host has that recorded.
pub fn failure() -> Option<String> {
    FAILURE.lock().ok().and_then(|f| f.clone())
}

/// Notes that something needed the part, unless it could not load (then the statement
/// fails with the reason and nothing is run again).
pub fn want() {
    if failure().is_none() {
        WANTED.store(true, Ordering::Relaxed);
    }
}

/// Whether something needed the part since the last call; clears the note.
pub fn take_wanted() -> bool {
    WANTED.swap(false, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test, since the note and the reason are the process's.
    #[test]
    fn a_missing_part_is_wanted_unless_it_failed_to_load() {
        static CELL: Later<fn() -> u8> = Later::new();
        failed(None);
        take_wanted();
        assert!(CELL.get().is_none());
        assert!(
            take_wanted(),
            "asking for what is not installed wants the part"
        );
        assert!(!take_wanted(), "reading the note clears it");
        failed(Some("HTTP status 404".into()));
        assert!(CELL.get().is_none());
        assert!(
            !take_wanted(),
            "a part that failed to load is not asked for again"
        );
        assert_eq!(failure().as_deref(), Some("HTTP status 404"));
        failed(None);
        fn seven() -> u8 {
            7
        }
        CELL.install(seven);
        assert_eq!(CELL.get().map(|f| f()), Some(7));
        assert!(!take_wanted());
        assert!(CELL.ready());
    }
}
