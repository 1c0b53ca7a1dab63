//! The errors the cluster reports, each carrying MongoDB's code and message.

/// An error from a cluster operation. The variant is MongoDB's code name and the string is
/// MongoDB's message, so the shell can print `MongoServerError[CodeName]: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// Code 2: a value or option is invalid.
    #[error("{0}")]
    BadValue(String),
    /// Code 20: the operation is not allowed in this state.
    #[error("{0}")]
    IllegalOperation(String),
    /// Code 23: the collection is already sharded.
    #[error("{0}")]
    AlreadyInitialized(String),
    /// Code 26: the namespace does not exist.
    #[error("{0}")]
    NamespaceNotFound(String),
    /// Code 61: a document lacks a usable shard key.
    #[error("{0}")]
    ShardKeyNotFound(String),
    /// Code 153: the chunk is too big to move.
    #[error("{0}")]
    ChunkTooBig(String),
    /// Code 9: a request could not be parsed.
    #[error("{0}")]
    FailedToParse(String),
    /// Code 87: the chunk cannot be split.
    #[error("{0}")]
    CannotSplit(String),
    /// Code 163: a zone is still used by a range.
    #[error("{0}")]
    ZoneStillInUse(String),
    /// Code 177: no shard has the zone.
    #[error("{0}")]
    ZoneNotFound(String),
    /// Code 178: a zone range overlaps an existing one.
    #[error("{0}")]
    RangeOverlapConflict(String),
    /// Code 31025, which has no name: a shard key update without the full shard key.
    #[error("{0}")]
    Location31025(String),
    /// Code 40414, which has no name: a required field of a command is missing (the IDL
    /// parser's `throwMissingField`).
    #[error("{0}")]
    Location40414(String),
    /// Code 14: a value has the wrong type for the operation.
    #[error("{0}")]
    TypeMismatch(String),
    /// Code 28: an update path runs into a value that cannot hold fields.
    #[error("{0}")]
    PathNotViable(String),
    /// Code 40: two update operators touch overlapping paths.
    #[error("{0}")]
    ConflictingUpdateOperators(String),
    /// Code 52: a replacement document holds a `$`-prefixed field.
    #[error("{0}")]
    DollarPrefixedFieldName(String),
    /// Code 56: an update path has an empty part.
    #[error("{0}")]
    EmptyFieldName(String),
    /// Code 10334: a document is over the 16 MiB BSON limit.
    #[error("{0}")]
    BsonObjectTooLarge(String),
    /// Code 59: the command does not exist.
    #[error("{0}")]
    CommandNotFound(String),
    /// Code 4952606, which has no name: too few distinct key values for analyzeShardKey's
    /// 100 ranges.
    #[error("{0}")]
    Location4952606(String),
    /// Code 8: a failure mongos reports with only an `errmsg`. The reply carries no code,
    /// and MongoDB's own reading of such a reply (`getStatusFromCommandResult`) gives it
    /// `UnknownError`, so that is the code and name shown.
    #[error("{0}")]
    Errmsg(String),
    /// Code 70: no shard has that name.
    #[error("{0}")]
    ShardNotFound(String),
    /// Code 72: options conflict.
    #[error("{0}")]
    InvalidOptions(String),
    /// Code 73: the namespace is malformed.
    #[error("{0}")]
    InvalidNamespace(String),
    /// Code 117: another operation of the kind is under way (3.6: a second draining shard).
    #[error("{0}")]
    ConflictingOperationInProgress(String),
    /// Code 118: the collection is not sharded.
    #[error("{0}")]
    NamespaceNotSharded(String),
    /// Code 11000: a unique index already holds this key.
    #[error("{0}")]
    DuplicateKey(String),
    /// Code 66: an update tried to change an immutable field.
    #[error("{0}")]
    ImmutableField(String),
    /// Code 15: a value past a numeric or nesting limit (a document nested too deep, an
    /// integer update past int64).
    #[error("{0}")]
    Overflow(String),
    /// Code 51260, which has no name: no shard key in `clearJumboFlag`'s `find`.
    #[error("{0}")]
    Location51260(String),
    /// Code 51261, which has no name: no chunk has `clearJumboFlag`'s bounds.
    #[error("{0}")]
    Location51261(String),
    /// Code 16634, which has no name: a range bound's field names are not the key's
    /// (`KeyPattern::extendRangeBound`).
    #[error("{0}")]
    Location16634(String),
    /// Code 16649, which has no name: a range bound is longer than the key
    /// (`KeyPattern::extendRangeBound`).
    #[error("{0}")]
    Location16649(String),
    /// Code 4952607, which has no name: resharding found no shard for a zone.
    #[error("{0}")]
    Location4952607(String),
    /// Code 31387, which has no name: `presplitHashedZones` without an empty collection, zones and a hashed field.
    #[error("{0}")]
    Location31387(String),
    /// Code 31412, which has no name: `presplitHashedZones` on a hashed prefix key without one zone over the whole key space.
    #[error("{0}")]
    Location31412(String),
    /// Code 31388, which has no name: a `presplitHashedZones` zone with MinKey or MaxKey in
    /// a lower bound field before the hashed field.
    #[error("{0}")]
    Location31388(String),
    /// Code 31389, which has no name: a `presplitHashedZones` zone whose lower bound's
    /// hashed field is not MinKey.
    #[error("{0}")]
    Location31389(String),
    /// Code 31390, which has no name: a `presplitHashedZones` zone whose bounds agree on
    /// every field before the hashed field.
    #[error("{0}")]
    Location31390(String),
    /// Code 31391, which has no name: a `presplitHashedZones` zone whose lower bound has a
    /// value other than MinKey after the hashed field.
    #[error("{0}")]
    Location31391(String),
    /// Code 50973, which has no name: a zone with a range but no shard, when `shardCollection` creates chunks along zones.
    #[error("{0}")]
    Location50973(String),
    /// Code 67: an index cannot be created as asked.
    #[error("{0}")]
    CannotCreateIndex(String),
    /// Code 85: an index on the same key exists under another name (or, before 4.4, an
    /// index of that name exists with other options).
    #[error("{0}")]
    IndexOptionsConflict(String),
    /// Code 86: an index of that name exists on another key (4.4 on).
    #[error("{0}")]
    IndexKeySpecsConflict(String),
    /// Code 13388: a shard's routing information does not match the request; mongos
    /// retries and, when its retries are spent, returns the shard's message.
    #[error("{0}")]
    StaleConfig(String),
    /// Code 146: the work or memory a statement would take is past the playground's
    /// budget (MongoDB's name for an operation over its memory limit).
    #[error("{0}")]
    ExceededMemoryLimit(String),
    /// An error whose code is one of [`Code`]'s: the codes the aggregation pipeline and
    /// the config database's refusals use, kept in their own list.
    #[error("{1}")]
    Coded(Code, String),
    /// Code 50: the statement passed its work budget (`support::budget`), ShardLab's
    /// stand-in for `maxTimeMS`; the message is MongoDB's, "operation exceeded time limit".
    #[error("{0}")]
    MaxTimeMSExpired(String),
    /// Code 51091: a regular expression that does not compile
    /// (`RegexMatchExpression`, "Regular expression is invalid: ...").
    #[error("{0}")]
    Location51091(String),
    /// Code 51108: a regular expression option letter that PCRE does not take
    /// ("invalid flag in regex options: ...").
    #[error("{0}")]
    Location51108(String),
    /// Code 1 (InternalError): the statement needs a part of the engine that has not
    /// loaded yet (the browser's engine loads `$regex`'s matcher on first use:
    /// `query::regex::install_compiler`). Raised before the statement has any effect.
    #[error("{0}")]
    PartNotLoaded(String),
}

impl From<crate::support::budget::Exhausted> for ClusterError {
    fn from(_: crate::support::budget::Exhausted) -> Self {
        ClusterError::MaxTimeMSExpired("operation exceeded time limit".to_string())
    }
}

/// MongoDB codes used by the aggregation pipeline and by the config database's refusal
/// of writes, each with its code name (a `Location<n>` name for a bare `uassert` code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// 13: the user may not run the command (writes to the config database).
    Unauthorized,
    /// 168: an unknown expression operator in a pipeline.
    InvalidPipelineOperator,
    /// 15952: an unknown `$group` accumulator.
    Location15952,
    /// 15955: a `$group` without `_id`.
    Location15955,
    /// 15958: a `$limit` that is not positive.
    Location15958,
    /// 15973: a `$sort` whose value is not an object.
    Location15973,
    /// 15974: a `$sort` key ordering that is not a number or `$meta`.
    Location15974,
    /// 15975: a `$sort` key ordering other than 1 or -1.
    Location15975,
    /// 15976: an empty `$sort`.
    Location15976,
    /// 16410: a field path given as a `$group` field name, or a bad field path.
    Location16410,
    /// 40156: a `$count` field name that is not a non-empty string.
    Location40156,
    /// 40234: a `$group` field that is not an accumulator object.
    Location40234,
    /// 40323: a stage document that has not exactly one field.
    Location40323,
    /// 40324: an unknown stage name.
    Location40324,
    /// 40602: a stage that must come first somewhere else in the pipeline.
    Location40602,
    /// 15947: a `$group` that is not an object.
    Location15947,
    /// 15950: a `$group` output field named like an operator.
    Location15950,
    /// 15956: a `$skip` that is not a non-negative number.
    Location15956,
    /// 15959: a `$match` that is not an object.
    Location15959,
    /// 15969: a `$project` that is not an object.
    Location15969,
    /// 15983: an expression object with more than one field.
    Location15983,
    /// 17124: a `$size` of something that is not an array.
    Location17124,
    /// 17276: an undefined `$$` variable.
    Location17276,
    /// 51272: an empty `$project`.
    Location51272,
    /// 15981: an `$unwind` that is neither a string nor an object.
    Location15981,
    /// 28812: an `$unwind` without `path`.
    Location28812,
    /// 28818: an `$unwind` path without its `$`.
    Location28818,
    /// 6789100: a `$shardedDataDistribution` with options.
    Location6789100,
    /// 6789102: a `$shardedDataDistribution` outside the admin database.
    Location6789102,
    /// 13297: a database whose name differs from an existing one's only in case.
    DatabaseDifferCase,
    /// 48: a database that exists already with other options (another primary shard).
    NamespaceExists,
    /// 4: a required field of a command that is missing (`bsonExtractField`).
    NoSuchKey,
    /// 656450: a 6.0+ `moveChunk` whose `find` gives no shard key.
    Location656450,
    /// 656451: a 6.0+ `moveChunk` whose bounds are not shard keys.
    Location656451,
    /// 656452: a 6.0+ `moveChunk` whose bounds are not one chunk's.
    Location656452,
    /// 105: sharding metadata that contradicts itself (chunks that do not tile their
    /// collection's key space, a changelog that does not lead to the chunks).
    IncompatibleShardingMetadata,
}

impl Code {
    /// MongoDB's code name.
    pub fn name(self) -> &'static str {
        match self {
            Code::Unauthorized => "Unauthorized",
            Code::InvalidPipelineOperator => "InvalidPipelineOperator",
            Code::Location15952 => "Location15952",
            Code::Location15955 => "Location15955",
            Code::Location15958 => "Location15958",
            Code::Location15973 => "Location15973",
            Code::Location15974 => "Location15974",
            Code::Location15975 => "Location15975",
            Code::Location15976 => "Location15976",
            Code::Location16410 => "Location16410",
            Code::Location40156 => "Location40156",
            Code::Location40234 => "Location40234",
            Code::Location40602 => "Location40602",
            Code::Location40323 => "Location40323",
            Code::Location40324 => "Location40324",
            Code::Location15947 => "Location15947",
            Code::Location15950 => "Location15950",
            Code::Location15956 => "Location15956",
            Code::Location15959 => "Location15959",
            Code::Location15969 => "Location15969",
            Code::Location15983 => "Location15983",
            Code::Location17124 => "Location17124",
            Code::Location17276 => "Location17276",
            Code::Location51272 => "Location51272",
            Code::Location15981 => "Location15981",
            Code::Location28812 => "Location28812",
            Code::Location28818 => "Location28818",
            Code::Location6789100 => "Location6789100",
            Code::Location6789102 => "Location6789102",
            Code::DatabaseDifferCase => "DatabaseDifferCase",
            Code::NamespaceExists => "NamespaceExists",
            Code::NoSuchKey => "NoSuchKey",
            Code::Location656450 => "Location656450",
            Code::Location656451 => "Location656451",
            Code::Location656452 => "Location656452",
            Code::IncompatibleShardingMetadata => "IncompatibleShardingMetadata",
        }
    }

    /// MongoDB's numeric code.
    pub fn number(self) -> i32 {
        match self {
            Code::Unauthorized => 13,
            Code::InvalidPipelineOperator => 168,
            Code::Location15952 => 15_952,
            Code::Location15955 => 15_955,
            Code::Location15958 => 15_958,
            Code::Location15973 => 15_973,
            Code::Location15974 => 15_974,
            Code::Location15975 => 15_975,
            Code::Location15976 => 15_976,
            Code::Location16410 => 16_410,
            Code::Location40156 => 40_156,
            Code::Location40234 => 40_234,
            Code::Location40602 => 40_602,
            Code::Location40323 => 40_323,
            Code::Location40324 => 40_324,
            Code::Location15947 => 15_947,
            Code::Location15950 => 15_950,
            Code::Location15956 => 15_956,
            Code::Location15959 => 15_959,
            Code::Location15969 => 15_969,
            Code::Location15983 => 15_983,
            Code::Location17124 => 17_124,
            Code::Location17276 => 17_276,
            Code::Location51272 => 51_272,
            Code::Location15981 => 15_981,
            Code::Location28812 => 28_812,
            Code::Location28818 => 28_818,
            Code::Location6789100 => 6_789_100,
            Code::Location6789102 => 6_789_102,
            Code::DatabaseDifferCase => 13_297,
            Code::NamespaceExists => 48,
            Code::NoSuchKey => 4,
            Code::Location656450 => 656_450,
            Code::Location656451 => 656_451,
            Code::Location656452 => 656_452,
            Code::IncompatibleShardingMetadata => 105,
        }
    }
}

impl ClusterError {
    /// MongoDB's code name.
    pub fn code_name(&self) -> &'static str {
        match self {
            ClusterError::BadValue(_) => "BadValue",
            ClusterError::IllegalOperation(_) => "IllegalOperation",
            ClusterError::AlreadyInitialized(_) => "AlreadyInitialized",
            ClusterError::NamespaceNotFound(_) => "NamespaceNotFound",
            ClusterError::ShardKeyNotFound(_) => "ShardKeyNotFound",
            ClusterError::ChunkTooBig(_) => "ChunkTooBig",
            ClusterError::ShardNotFound(_) => "ShardNotFound",
            ClusterError::InvalidOptions(_) => "InvalidOptions",
            ClusterError::FailedToParse(_) => "FailedToParse",
            ClusterError::CannotSplit(_) => "CannotSplit",
            ClusterError::ZoneStillInUse(_) => "ZoneStillInUse",
            ClusterError::ZoneNotFound(_) => "ZoneNotFound",
            ClusterError::RangeOverlapConflict(_) => "RangeOverlapConflict",
            ClusterError::Location31025(_) => "Location31025",
            ClusterError::Location40414(_) => "Location40414",
            ClusterError::CommandNotFound(_) => "CommandNotFound",
            ClusterError::BsonObjectTooLarge(_) => "BSONObjectTooLarge",
            ClusterError::TypeMismatch(_) => "TypeMismatch",
            ClusterError::PathNotViable(_) => "PathNotViable",
            ClusterError::ConflictingUpdateOperators(_) => "ConflictingUpdateOperators",
            ClusterError::DollarPrefixedFieldName(_) => "DollarPrefixedFieldName",
            ClusterError::EmptyFieldName(_) => "EmptyFieldName",
            ClusterError::Location4952606(_) => "Location4952606",
            ClusterError::Errmsg(_) => "UnknownError",
            ClusterError::InvalidNamespace(_) => "InvalidNamespace",
            ClusterError::ConflictingOperationInProgress(_) => "ConflictingOperationInProgress",
            ClusterError::NamespaceNotSharded(_) => "NamespaceNotSharded",
            ClusterError::DuplicateKey(_) => "DuplicateKey",
            ClusterError::ImmutableField(_) => "ImmutableField",
            ClusterError::Overflow(_) => "Overflow",
            ClusterError::ExceededMemoryLimit(_) => "ExceededMemoryLimit",
            ClusterError::Coded(code, _) => code.name(),
            ClusterError::MaxTimeMSExpired(_) => "MaxTimeMSExpired",
            ClusterError::Location51091(_) => "Location51091",
            ClusterError::Location51108(_) => "Location51108",
            ClusterError::PartNotLoaded(_) => "InternalError",
            ClusterError::Location51260(_) => "Location51260",
            ClusterError::Location51261(_) => "Location51261",
            ClusterError::Location16634(_) => "Location16634",
            ClusterError::Location16649(_) => "Location16649",
            ClusterError::Location4952607(_) => "Location4952607",
            ClusterError::Location31387(_) => "Location31387",
            ClusterError::Location31412(_) => "Location31412",
            ClusterError::Location31388(_) => "Location31388",
            ClusterError::Location31389(_) => "Location31389",
            ClusterError::Location31390(_) => "Location31390",
            ClusterError::Location31391(_) => "Location31391",
            ClusterError::Location50973(_) => "Location50973",
            ClusterError::StaleConfig(_) => "StaleConfig",
            ClusterError::CannotCreateIndex(_) => "CannotCreateIndex",
            ClusterError::IndexOptionsConflict(_) => "IndexOptionsConflict",
            ClusterError::IndexKeySpecsConflict(_) => "IndexKeySpecsConflict",
        }
    }

    /// MongoDB's numeric code.
    pub fn code(&self) -> i32 {
        match self {
            ClusterError::BadValue(_) => 2,
            ClusterError::IllegalOperation(_) => 20,
            ClusterError::AlreadyInitialized(_) => 23,
            ClusterError::NamespaceNotFound(_) => 26,
            ClusterError::ShardKeyNotFound(_) => 61,
            ClusterError::ChunkTooBig(_) => 153,
            ClusterError::FailedToParse(_) => 9,
            ClusterError::CannotSplit(_) => 87,
            ClusterError::ZoneStillInUse(_) => 163,
            ClusterError::ZoneNotFound(_) => 177,
            ClusterError::RangeOverlapConflict(_) => 178,
            ClusterError::Location31025(_) => 31025,
            ClusterError::Location40414(_) => 40414,
            ClusterError::CommandNotFound(_) => 59,
            ClusterError::BsonObjectTooLarge(_) => 10334,
            ClusterError::TypeMismatch(_) => 14,
            ClusterError::PathNotViable(_) => 28,
            ClusterError::ConflictingUpdateOperators(_) => 40,
            ClusterError::DollarPrefixedFieldName(_) => 52,
            ClusterError::EmptyFieldName(_) => 56,
            ClusterError::Location4952606(_) => 4_952_606,
            ClusterError::Errmsg(_) => 8,
            ClusterError::ShardNotFound(_) => 70,
            ClusterError::InvalidOptions(_) => 72,
            ClusterError::InvalidNamespace(_) => 73,
            ClusterError::ConflictingOperationInProgress(_) => 117,
            ClusterError::NamespaceNotSharded(_) => 118,
            ClusterError::DuplicateKey(_) => 11000,
            ClusterError::ImmutableField(_) => 66,
            ClusterError::Overflow(_) => 15,
            ClusterError::ExceededMemoryLimit(_) => 146,
            ClusterError::Coded(code, _) => code.number(),
            ClusterError::MaxTimeMSExpired(_) => 50,
            ClusterError::Location51091(_) => 51_091,
            ClusterError::Location51108(_) => 51_108,
            ClusterError::PartNotLoaded(_) => 1,
            ClusterError::Location51260(_) => 51_260,
            ClusterError::Location51261(_) => 51_261,
            ClusterError::Location16634(_) => 16_634,
            ClusterError::Location16649(_) => 16_649,
            ClusterError::Location4952607(_) => 4_952_607,
            ClusterError::Location31387(_) => 31_387,
            ClusterError::Location31412(_) => 31_412,
            ClusterError::Location31388(_) => 31_388,
            ClusterError::Location31389(_) => 31_389,
            ClusterError::Location31390(_) => 31_390,
            ClusterError::Location31391(_) => 31_391,
            ClusterError::Location50973(_) => 50_973,
            ClusterError::StaleConfig(_) => 13_388,
            ClusterError::CannotCreateIndex(_) => 67,
            ClusterError::IndexOptionsConflict(_) => 85,
            ClusterError::IndexKeySpecsConflict(_) => 86,
        }
    }
}
