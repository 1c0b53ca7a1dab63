//! The page's start, carried out for the root component: the options its address gives,
//! the language, the saved sessions, the decision of what opens first
//! ([`startup::boot`]), then the engine's first session; and the moments the start
//! reports to the platform (the first screen hydrated, the page up after a crash) or
//! asks of it (everything kept for offline use).

use crate::driver::Driver;
use crate::i18n::Words;
use crate::language;
use crate::sessions;
use crate::share::PageOptions;
use crate::startup::{self, Boot};
use std::rc::Rc;

/// The page's options, read from its address.
pub fn page_options() -> PageOptions {
    let (query, fragment) = crate::platform::address();
    PageOptions::from_address(&query, &fragment)
}

/// Starts the page: asks the engine for its catalog, then, in order, settles the
/// language (`on_lang`), reads the saved sessions (never in an embedded view), decides
/// what opens (`on_boot` sees the decision first) and opens it. A session the user opened
/// meanwhile (a lesson from the menu) wins, as a session of its own: this tab's saved one
/// stays stored, to return to.
pub fn begin(
    driver: Driver,
    options: Rc<PageOptions>,
    on_lang: impl FnOnce(Words) + 'static,
    on_boot: impl FnOnce(&Boot) + 'static,
) {
    driver.catalog();
    wasm_bindgen_futures::spawn_local(async move {
        // The page's language first, so that what the start says is in it.
        let w = language::start(options.lang.as_deref()).await;
        on_lang(w);
        if !options.embed {
            sessions::load(w).await;
        }
        let boot = startup::boot(w, &options);
        on_boot(&boot);
        if boot.hold {
            driver.hold();
        }
        if driver.has_session() {
            sessions::start_new();
        } else {
            driver.open(boot.opening, true);
        }
    });
}

/// The page hydrated the pre-rendered first screen: what was clicked or typed in it
/// before is done again (see [`crate::platform::first_screen::hydrated`]).
pub fn hydrated() {
    crate::platform::first_screen::hydrated();
}

/// The page is up (its first picture drawn, its replay over): a crash it recovered from
/// is over (see [`crate::recovery`]).
pub fn up() {
    crate::recovery::started();
}

/// Asks for everything to be kept for offline use; `kept` gets the bytes kept once they
/// are.
pub fn keep_offline(kept: impl Fn(f64) + 'static) {
    crate::network::keep_offline(kept);
}
