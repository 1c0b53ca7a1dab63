//! Which databases and collections may be created and sharded: `enableSharding`'s checks
//! (database names, `admin` and `local`, names that differ only in case, the primary
//! shard asked for) and `shardCollection`'s namespace checks (the config database,
//! `system.` collections, the length of a sharded namespace), each in its era's words.

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{split_ns, Cluster, Database, VersionMode};
use crate::values::error::{ClusterError, Code};

/// The longest namespace a sharded collection may have from 4.4 on: 255 less the
/// `config.cache.chunks.` prefix of the shards' cached chunks
/// (`NamespaceString::MaxNsShardedCollectionLen`).
const MAX_SHARDED_NS_LEN: usize = 235;

/// The collection of the config database that may be sharded
/// (`NamespaceString::kLogicalSessionsNamespace`).
const SESSIONS_NS: &str = "config.system.sessions";

impl Cluster {
    /// `enableSharding: db` with an optional `primaryShard` (spec §2). Creates the
    /// database if needed; since 6.0 sharding needs no enabling, but the database still
    /// gets its primary shard.
    ///
    /// 3.6 (`configsvr_enable_sharding_command.cpp`) refuses `admin`, `config` and
    /// `local`; 4.2 to 5.0 only `admin` and `local`, `can't shard <db> database`; 8.0's
    /// `ShardingCatalogManager::createDatabase` (`checkDbNameConstraints`) refuses
    /// `admin`, `local` and another casing of `config`, and mongos (`cluster_ddl.cpp`)
    /// wraps the config server's error in `Database <db> could not be created`.
    pub fn enable_sharding(&mut self, db: &str, primary: Option<&str>) -> Result<(), ClusterError> {
        self.check_db_name(db)?;
        if db == "config" {
            return Ok(());
        }
        let primary = primary
            .map(|name| {
                self.shard_index(name).map_err(|_| {
                    self.database_error(
                        db,
                        ClusterError::ShardNotFound(format!("Shard {name} not found")),
                    )
                })
            })
            .transpose()?;
        self.create_database(db, primary)
    }

    /// The database name checks of `enableSharding` (and of the database creation a
    /// `shardCollection` starts with), in the order of [`Cluster::enable_sharding`].
    fn check_db_name(&self, db: &str) -> Result<(), ClusterError> {
        let version = self.version();
        if !valid_db_name(db) {
            return Err(ClusterError::InvalidNamespace(match version {
                VersionMode::V70 | VersionMode::V80 => format!(
                    "Database {db} could not be created :: caused by :: Invalid db name specified: {db}"
                ),
                _ => format!("invalid db name specified: {db}"),
            }));
        }
        let refused = match version {
            VersionMode::V36 => matches!(db, "admin" | "config" | "local"),
            VersionMode::V50 => matches!(db, "admin" | "local"),
            VersionMode::V70 | VersionMode::V80 => {
                db != "config"
                    && ["admin", "local", "config"]
                        .iter()
                        .any(|r| r.eq_ignore_ascii_case(db))
            }
        };
        if refused {
            return Err(ClusterError::InvalidOptions(match version {
                VersionMode::V70 | VersionMode::V80 => format!(
                    "Database {db} could not be created :: caused by :: Cannot manually create database '{db}'"
                ),
                _ => format!("can't shard {db} database"),
            }));
        }
        Ok(())
    }

    /// Creates database `db` if it does not exist, on `primary` or the first shard: the
    /// config server's `createDatabase`, which refuses a name that differs from an
    /// existing database's only in case, and an existing database on another primary.
    pub(crate) fn create_database(
        &mut self,
        db: &str,
        primary: Option<ShardIdx>,
    ) -> Result<(), ClusterError> {
        if let Some((existing, found)) = self
            .databases
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(db))
        {
            if existing != db {
                return Err(self.database_error(
                    db,
                    ClusterError::Coded(
                        Code::DatabaseDifferCase,
                        format!(
                            "can't have 2 databases that just differ on case  have: {existing} want to add: {db}"
                        ),
                    ),
                ));
            }
            if let Some(asked) = primary.filter(|p| *p != found.primary) {
                let name = self.shard_name(asked).to_string();
                return Err(self.database_error(
                    db,
                    ClusterError::Coded(
                        Code::NamespaceExists,
                        format!(
                            "database already created on a primary which is different from {name}"
                        ),
                    ),
                ));
            }
            return Ok(());
        }
        let primary = primary.unwrap_or_else(|| self.shards().map(|(i, _)| i).next().unwrap_or(0));
        self.databases.insert(db.to_string(), Database { primary });
        Ok(())
    }

    /// The config server's error for creating database `db` as mongos gives it: from 5.0
    /// (`cluster_ddl.cpp`, `createDatabase`) with the context `Database <db> could not be
    /// created`; 3.6's mongos passes it on as it is.
    fn database_error(&self, db: &str, error: ClusterError) -> ClusterError {
        if self.version() == VersionMode::V36 {
            return error;
        }
        let context = |m: String| format!("Database {db} could not be created :: caused by :: {m}");
        match error {
            ClusterError::ShardNotFound(m) => ClusterError::ShardNotFound(context(m)),
            ClusterError::Coded(code, m) => ClusterError::Coded(code, context(m)),
            other => other,
        }
    }

    /// `shardCollection`'s checks of the namespace itself, after its form: a sharded
    /// namespace is at most 235 characters from 4.4 on (`Namespace too long`); in the
    /// config database only `config.system.sessions` may be sharded; no other `system.`
    /// collection may be (`CreateCollectionCoordinator::_checkCommandArguments`, and 3.6's
    /// `ConfigSvrShardCollectionCommand`, in the same words).
    pub(crate) fn check_shardable_ns(&self, ns: &str) -> Result<(), ClusterError> {
        let (db, coll) = split_ns(ns)?;
        if matches!(db, "admin" | "local") {
            // mongos creates the database first, which the config server refuses.
            self.check_db_name(db)?;
        }
        if self.version() != VersionMode::V36 && ns.len() > MAX_SHARDED_NS_LEN {
            return Err(ClusterError::InvalidNamespace(format!(
                "Namespace too long. Namespace: {ns} Max: {MAX_SHARDED_NS_LEN}"
            )));
        }
        if db == "config" && ns != SESSIONS_NS {
            return Err(ClusterError::IllegalOperation(
                "only special collections in the config db may be sharded".to_string(),
            ));
        }
        if coll.starts_with("system.") && ns != SESSIONS_NS {
            return Err(ClusterError::IllegalOperation(
                "can't shard system namespaces".to_string(),
            ));
        }
        Ok(())
    }
}

/// `NamespaceString::validDBName`: not empty, at most 63 bytes, and none of
/// `/\. "*<>:|?$` nor NUL (`$` is allowed for the names MongoDB made before 3.0, which
/// a user cannot create).
fn valid_db_name(db: &str) -> bool {
    !db.is_empty()
        && db.len() < 64
        && !db.chars().any(|c| {
            matches!(
                c,
                '/' | '\\' | '.' | ' ' | '"' | '*' | '<' | '>' | ':' | '|' | '?' | '\0'
            )
        })
}
