//! What drives a simulated cluster: seeded document and query generators, the
//! lessons' preset scenarios as shell commands, and a user's own documents imported from
//! a file (`import.rs`, read as mongoimport reads them, and `import_batch.rs`, the
//! `insertMany` commands that put them in), a sample of queries from a file
//! (`import_queries.rs`, bare filters or `config.sampledQueries` documents), and a real
//! cluster's sharding metadata, from its config exports (`cluster_files.rs`,
//! `cluster_import.rs`) or from what `sh.status({verbose: true})` printed
//! (`status_printout.rs`, `status_legacy.rs`, `status_values.rs`).
//! Imports only the layers below.

pub(crate) mod cluster_files;
pub(crate) mod cluster_import;
pub(crate) mod generate;
pub(crate) mod import;
pub(crate) mod import_batch;
pub(crate) mod import_csv;
pub(crate) mod import_fields;
pub(crate) mod import_json;
pub(crate) mod import_preview;
pub(crate) mod import_queries;
pub mod presets;
pub(crate) mod status_legacy;
pub(crate) mod status_printout;
pub(crate) mod status_values;

pub use cluster_files::{
    Located, MetadataCollection, MetadataDocs, MetadataError, MetadataReader, METADATA_COLLECTIONS,
};
pub use cluster_import::{assemble, ClusterImport, SkippedChanges};
pub use generate::{
    generate, generate_queries, key_fit, preset, preset_names, presets_fitting, spec_of,
    with_key_fields, KeyFit, Template, CONTINENTS,
};
pub use import::{
    read_all, Failure, ImportError, ImportFormat, ImportOptions, ImportReader, ImportedDocument,
    Record, MAX_DEPTH as MAX_IMPORT_DEPTH,
};
pub use import_batch::{
    import_step, insert_statements, prepare, step_fits, Batcher, ImportItem, Importer, InsertBatch,
    Prepared, Sorter, BATCH_DOCUMENTS, MAX_IMPORT_STEP_BYTES, MAX_SORTED_BYTES,
    MAX_SORTED_DOCUMENTS,
};
pub use import_fields::ParseGrace;
pub use import_preview::{preview, ImportPreview, COLUMN_TYPE_CHOICES, MAX_PREVIEW_FIELDS};
pub use import_queries::{
    read_queries, QueryFile, QueryFileError, QueryFileOptions, MAX_QUERIES, MAX_QUERY_BYTES,
    MAX_QUERY_FAILURES_KEPT, MAX_QUERY_FILE_BYTES,
};
pub use status_printout::{
    is_status_printout, read_status_printout, PrintoutShell, StatusPrintout, MAX_PRINTOUT_BYTES,
};
