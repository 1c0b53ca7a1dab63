//! What the page does beyond drawing: its start-up decisions, the driver that sends acts
//! to the engine and runs replays, the Compare tab's driver, content fetched on first use,
//! and exports. It imports the model and the platform, never the components.

pub mod ask;
pub mod comparison;
pub mod documents;
pub mod driver;
pub mod export;
pub mod glossary;
pub mod host;
pub mod kept;
pub mod keys;
pub mod language;
pub mod lessons;
pub mod loading;
pub mod presenting;
pub mod screen;
pub mod start;
pub mod startup;
